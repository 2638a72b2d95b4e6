# The stand-ins bcbench links in place of the hardware modules
# (bench/hil/absent.c, not in libbcbench.a): linked ahead of the archive,
# they keep its hardware members out, as in bcbench's own link.
TEST_SRC_test_hw_split := bench/hil/absent.c
$(BUILD)/tests/test_hw_split: bench/hil/absent.c
