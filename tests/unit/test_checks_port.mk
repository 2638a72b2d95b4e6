# test_checks_port makes the engine's calloc fail once (__wrap_calloc in
# the test) to show bn_checks_end never drops the results silently.
TEST_LDFLAGS_test_checks_port = -Wl,--wrap=calloc
