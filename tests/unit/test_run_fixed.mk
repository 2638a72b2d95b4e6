# test_run_fixed counts fsync calls (__wrap_fsync in the test): a suite's
# entry leaves them to its suite.
TEST_LDFLAGS_test_run_fixed = -Wl,--wrap=fsync
