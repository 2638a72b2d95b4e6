/* `bcbench devices`: one section per library, each asking its library
 * directly, so what is printed is what that library can reach (an FTDI
 * chip libftdi1 cannot open is not "found" just because libusb lists
 * it). A machine without /dev/bus/usb says so instead of a bare "none". */
#include "hil/devices.h"

#include <libftdi1/ftdi.h>
#include <libserialport.h>
#include <libsigrok/libsigrok.h>
#include <libusb.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/json.h"
#include "core/text.h"
#include "hil/usb_dev.h"

#define FTDI_VID 0x0403
/* FT232R/FT245R, FT2232, FT4232, FT232H, FT-X: the chips fixtures use. */
static const int ftdi_pids[] = { 0x6001, 0x6010, 0x6011, 0x6014, 0x6015 };

#define USB_DIR "/dev/bus/usb"

static bool usb_bus_visible(void)
{
	return access(USB_DIR, F_OK) == 0;
}

static void none(FILE *out, const char *looked)
{
	if (!usb_bus_visible())
		fprintf(out, "  none found%s; no %s here: USB is not visible on this machine "
			     "(e.g. in a container)\n",
			looked, USB_DIR);
	else
		fprintf(out, "  none found%s\n", looked);
}

static int print_ftdi(FILE *out)
{
	struct ftdi_context *f = ftdi_new();
	int count = 0;

	fprintf(out, "FTDI devices (libftdi1):\n");
	if (!f) {
		fprintf(out, "  none found: libftdi1 could not start (ftdi_new failed: no USB "
			     "context)\n");
		return 0;
	}
	for (size_t k = 0; k < sizeof(ftdi_pids) / sizeof(ftdi_pids[0]); k++) {
		struct ftdi_device_list *list = NULL;
		int n = ftdi_usb_find_all(f, &list, FTDI_VID, ftdi_pids[k]);

		if (n < 0) {
			fprintf(out, "  0403:%04x: libftdi1 could not look: %s (%d)\n", ftdi_pids[k],
				ftdi_get_error_string(f), n);
			continue;
		}
		for (struct ftdi_device_list *d = list; d; d = d->next) {
			char mfr[128] = "", desc[128] = "", serial[128] = "";

			/* Fails without permission to open: the place still shows. */
			if (ftdi_usb_get_strings(f, d->dev, mfr, sizeof(mfr), desc, sizeof(desc),
						 serial, sizeof(serial)) < 0)
				snprintf(desc, sizeof(desc), "(cannot open: %s)",
					 ftdi_get_error_string(f));
			fprintf(out, "  0403:%04x  bus %03u address %03u  %s %s%s%s\n", ftdi_pids[k],
				libusb_get_bus_number(d->dev), libusb_get_device_address(d->dev), mfr,
				desc, serial[0] ? "  serial " : "", serial);
			count++;
		}
		ftdi_list_free(&list);
	}
	if (!count)
		none(out, " (looked for 0403:6001, 6010, 6011, 6014, 6015)");
	ftdi_free(f);
	return count;
}

static int print_serial(FILE *out)
{
	struct sp_port **ports = NULL;
	enum sp_return rc = sp_list_ports(&ports);
	int count = 0;

	fprintf(out, "Serial ports (libserialport):\n");
	if (rc != SP_OK) {
		char *m = rc == SP_ERR_FAIL ? sp_last_error_message() : NULL;

		fprintf(out, "  none found: libserialport could not look: %s\n",
			m ? m : rc == SP_ERR_MEM ? "out of memory" : "error");
		if (m)
			sp_free_error_message(m);
		return 0;
	}
	for (int i = 0; ports[i]; i++) {
		const char *desc = sp_get_port_description(ports[i]);
		int vid, pid;

		fprintf(out, "  %s  %s", sp_get_port_name(ports[i]), desc ? desc : "");
		if (sp_get_port_transport(ports[i]) == SP_TRANSPORT_USB &&
		    sp_get_port_usb_vid_pid(ports[i], &vid, &pid) == SP_OK)
			fprintf(out, "  (USB %04x:%04x)", vid, pid);
		fputc('\n', out);
		count++;
	}
	sp_free_port_list(ports);
	if (!count)
		fprintf(out, "  none found (pseudo-terminals are not listed)\n");
	return count;
}

static void print_sigrok(FILE *out)
{
	struct sr_context *ctx = NULL;
	struct sr_dev_driver **drv;
	int rc = sr_init(&ctx), n = 0;

	fprintf(out, "sigrok drivers (libsigrok):\n");
	if (rc != SR_OK) {
		fprintf(out, "  none found: libsigrok could not start: %s\n", sr_strerror(rc));
		return;
	}
	drv = sr_driver_list(ctx);
	for (int i = 0, col = 0; drv && drv[i]; i++) {
		int w = (int)strlen(drv[i]->name) + 2;

		if (!col || col + w > 78) {
			fprintf(out, "%s  %s", col ? ",\n" : "", drv[i]->name);
			col = w;
		} else {
			fprintf(out, ", %s", drv[i]->name);
			col += w;
		}
		n++;
	}
	if (n)
		fprintf(out, "\n  %d drivers (not devices: a driver finds its devices when a "
			     "capture opens it)\n",
			n);
	else
		fprintf(out, "  none found (libsigrok was built without drivers)\n");
	sr_exit(ctx);
}

struct usb_print {
	FILE *out;
};

static void print_usb_one(void *user, const struct bn_usb_seen *s)
{
	struct usb_print *p = user;

	fprintf(p->out, "  %04x:%04x  bus %03u address %03u", s->vid, s->pid, s->bus, s->address);
	if (s->opened)
		fprintf(p->out, "  %s %s%s%s", s->manufacturer, s->product,
			s->serial[0] ? "  serial " : "", s->serial);
	else
		fprintf(p->out, "  (cannot open: no strings)");
	fputc('\n', p->out);
}

static int print_usb(FILE *out)
{
	struct usb_print p = { .out = out };
	struct bn_err err = { 0 };
	int n;

	fprintf(out, "USB devices (libusb):\n");
	n = bn_usb_list(print_usb_one, &p, &err);
	if (n < 0) {
		fprintf(out, "  none found: libusb could not look: %s\n", err.msg);
		return 0;
	}
	if (!n)
		none(out, "");
	return n;
}

int bn_devices_print(FILE *out)
{
	int n = print_ftdi(out);

	n += print_serial(out);
	print_sigrok(out);
	n += print_usb(out);
	return n;
}

/* ---- the same, as JSON ---- */

/* Device strings are bytes from outside: valid UTF-8 in the document. */
static void add_str(cJSON *o, const char *key, const char *s)
{
	char *clean = bn_utf8_sanitize(s, strlen(s));

	cJSON_AddStringToObject(o, key, clean ? clean : "");
	free(clean);
}

static cJSON *section(cJSON *root, const char *name, const char *list_name, cJSON **list)
{
	cJSON *o = cJSON_AddObjectToObject(root, name);

	*list = o ? cJSON_AddArrayToObject(o, list_name) : NULL;
	if (o)
		cJSON_AddNullToObject(o, "error");
	return o;
}

static void set_error(cJSON *sec, const char *why)
{
	if (sec)
		cJSON_ReplaceItemInObject(sec, "error", cJSON_CreateString(why));
}

static int json_ftdi(cJSON *root)
{
	cJSON *list, *sec = section(root, "ftdi", "devices", &list);
	struct ftdi_context *f = ftdi_new();
	int count = 0;
	char why[300];

	if (!f) {
		set_error(sec, "libftdi1 could not start (ftdi_new failed: no USB context)");
		return 0;
	}
	for (size_t k = 0; k < sizeof(ftdi_pids) / sizeof(ftdi_pids[0]); k++) {
		struct ftdi_device_list *dl = NULL;
		int n = ftdi_usb_find_all(f, &dl, FTDI_VID, ftdi_pids[k]);

		if (n < 0) {
			snprintf(why, sizeof(why), "0403:%04x: %s (%d)", ftdi_pids[k], ftdi_get_error_string(f), n);
			set_error(sec, why);
			continue;
		}
		for (struct ftdi_device_list *d = dl; d; d = d->next) {
			char mfr[128] = "", desc[128] = "", serial[128] = "", id[16];
			cJSON *o = cJSON_CreateObject();
			bool opened = ftdi_usb_get_strings(f, d->dev, mfr, sizeof(mfr), desc, sizeof(desc),
							   serial, sizeof(serial)) >= 0;

			snprintf(id, sizeof(id), "0403:%04x", ftdi_pids[k]);
			cJSON_AddStringToObject(o, "id", id);
			cJSON_AddNumberToObject(o, "bus", libusb_get_bus_number(d->dev));
			cJSON_AddNumberToObject(o, "address", libusb_get_device_address(d->dev));
			cJSON_AddBoolToObject(o, "opened", opened);
			add_str(o, "manufacturer", mfr);
			add_str(o, "product", desc);
			add_str(o, "serial", serial);
			cJSON_AddItemToArray(list, o);
			count++;
		}
		ftdi_list_free(&dl);
	}
	ftdi_free(f);
	return count;
}

static int json_serial(cJSON *root)
{
	cJSON *list, *sec = section(root, "serial", "ports", &list);
	struct sp_port **ports = NULL;
	enum sp_return rc = sp_list_ports(&ports);
	int count = 0;

	if (rc != SP_OK) {
		char *m = rc == SP_ERR_FAIL ? sp_last_error_message() : NULL;

		set_error(sec, m ? m : rc == SP_ERR_MEM ? "out of memory" : "error");
		if (m)
			sp_free_error_message(m);
		return 0;
	}
	for (int i = 0; ports[i]; i++) {
		const char *desc = sp_get_port_description(ports[i]);
		cJSON *o = cJSON_CreateObject();
		int vid, pid;
		char id[16];

		add_str(o, "name", sp_get_port_name(ports[i]));
		add_str(o, "description", desc ? desc : "");
		if (sp_get_port_transport(ports[i]) == SP_TRANSPORT_USB &&
		    sp_get_port_usb_vid_pid(ports[i], &vid, &pid) == SP_OK) {
			snprintf(id, sizeof(id), "%04x:%04x", vid & 0xffff, pid & 0xffff);
			cJSON_AddStringToObject(o, "usb", id);
		} else {
			cJSON_AddNullToObject(o, "usb");
		}
		cJSON_AddItemToArray(list, o);
		count++;
	}
	sp_free_port_list(ports);
	return count;
}

static void json_sigrok(cJSON *root)
{
	cJSON *list, *sec = section(root, "sigrok", "drivers", &list);
	struct sr_context *ctx = NULL;
	struct sr_dev_driver **drv;
	int rc = sr_init(&ctx);

	if (rc != SR_OK) {
		set_error(sec, sr_strerror(rc));
		return;
	}
	drv = sr_driver_list(ctx);
	for (int i = 0; drv && drv[i]; i++)
		cJSON_AddItemToArray(list, cJSON_CreateString(drv[i]->name));
	sr_exit(ctx);
}

static void json_usb_one(void *user, const struct bn_usb_seen *s)
{
	cJSON *o = cJSON_CreateObject();
	char id[16];

	snprintf(id, sizeof(id), "%04x:%04x", s->vid, s->pid);
	cJSON_AddStringToObject(o, "id", id);
	cJSON_AddNumberToObject(o, "bus", s->bus);
	cJSON_AddNumberToObject(o, "address", s->address);
	cJSON_AddBoolToObject(o, "opened", s->opened);
	add_str(o, "manufacturer", s->opened ? s->manufacturer : "");
	add_str(o, "product", s->opened ? s->product : "");
	add_str(o, "serial", s->opened ? s->serial : "");
	cJSON_AddItemToArray(user, o);
}

static int json_usb(cJSON *root)
{
	cJSON *list, *sec = section(root, "usb", "devices", &list);
	struct bn_err err = { 0 };
	int n = bn_usb_list(json_usb_one, list, &err);

	if (n < 0) {
		set_error(sec, err.msg);
		return 0;
	}
	return n;
}

cJSON *bn_devices_json(void)
{
	cJSON *root = cJSON_CreateObject();
	int n;

	if (!root)
		return NULL;
	cJSON_AddBoolToObject(root, "usb_visible", usb_bus_visible());
	n = json_ftdi(root);
	n += json_serial(root);
	json_sigrok(root);
	n += json_usb(root);
	cJSON_AddNumberToObject(root, "found", n);
	return root;
}
