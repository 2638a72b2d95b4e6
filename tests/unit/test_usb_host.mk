# The bench as USB host (hil/usb_host.c through sysfs, hil/usb_dev.c
# through libusb) against one fake world: a sysfs tree in a temporary
# directory with a fake kernel playing on it (fake/sysfs_kernel.c), and a
# fake libusb serving the same devices (fake/usb_fake.c), linked in with
# -Wl,--wrap (LD_PRELOAD shims clash with ASan). The fake kernel runs in a
# thread of the test, as the real one runs beside the bench.
USB_WRAP := libusb_init libusb_exit libusb_has_capability libusb_get_device_list \
	libusb_free_device_list libusb_get_device_descriptor libusb_get_bus_number \
	libusb_get_device_address libusb_get_device_speed libusb_get_device libusb_open libusb_close \
	libusb_get_string_descriptor_ascii libusb_control_transfer libusb_hotplug_register_callback \
	libusb_hotplug_deregister_callback libusb_handle_events_timeout_completed \
	libusb_kernel_driver_active libusb_detach_kernel_driver libusb_set_configuration
USB_FAKE_SRC := tests/unit/fake/usb_fake.c tests/unit/fake/sysfs_kernel.c
TEST_LDFLAGS_test_usb_host := $(foreach f,$(USB_WRAP),-Wl,--wrap=$(f)) -pthread
TEST_SRC_test_usb_host := $(USB_FAKE_SRC)
$(BUILD)/tests/test_usb_host: $(USB_FAKE_SRC) tests/unit/fake/usb_fake.h tests/unit/fake/sysfs_kernel.h
