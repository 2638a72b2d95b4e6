/* SCPI-style instruments on a serial line: a dialect file (the command
 * strings of one instrument family, profiles/instruments/NAME.json, see
 * docs/instruments.md) and a client that speaks it through hil/serial.h.
 * The load and supply backends (hil/scpi_load.c, hil/scpi_supply.c) are
 * thin tables over this client.
 *
 * Errors name the port and the command or query:
 *   "/dev/ttyUSB0: :MEAS:VOLT?: no answer in 1000 ms (2 retries)"
 *   "/dev/ttyUSB0: :MEAS:VOLT?: expected a number, got \"ERR\""
 * and dialect file errors name the file and the key. */
#ifndef BN_HIL_SCPI_H
#define BN_HIL_SCPI_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"
#include "hil/backend.h"
#include "hil/serial.h"

#define BN_SCPI_LINE_LEN 128 /* a command, a query or a pattern */
#define BN_SCPI_AFFIX_LEN 16 /* a reply's prefix or unit suffix */
#define BN_SCPI_SEQ_MAX 8    /* commands in an init or safe sequence */
#define BN_SCPI_PATH_LEN 1200

enum bn_scpi_kind { BN_SCPI_LOAD, BN_SCPI_SUPPLY };

/* The commands a dialect defines. Setters hold one number placeholder
 * (%g, %f or %e, optionally with a precision: %.3f); on/off hold none. */
enum bn_scpi_cmd {
	BN_SCPI_SET_CURRENT,       /* load: the sink current, A */
	BN_SCPI_SET_VOLTAGE,       /* supply: the output voltage, V */
	BN_SCPI_SET_CURRENT_LIMIT, /* supply: the current limit, A */
	BN_SCPI_ON,                /* load input / supply output on */
	BN_SCPI_OFF,
	BN_SCPI_N_CMD
};

/* A query and the form of its reply: optional prefix, a number, optional
 * unit suffix ("5.000V"); blanks around the number are ignored. */
struct bn_scpi_query {
	char query[BN_SCPI_LINE_LEN];
	char prefix[BN_SCPI_AFFIX_LEN];
	char suffix[BN_SCPI_AFFIX_LEN];
};

struct bn_scpi_dialect {
	char file[BN_SCPI_PATH_LEN];
	char name[64];
	enum bn_scpi_kind kind;
	int baud;
	char line_end[4];                  /* appended to every line sent */
	char idn_query[BN_SCPI_LINE_LEN];  /* "*IDN?" */
	char idn_expect[BN_SCPI_LINE_LEN]; /* fnmatch pattern for its reply */
	char cmd[BN_SCPI_N_CMD][BN_SCPI_LINE_LEN]; /* "" where the kind has none */
	struct bn_scpi_query voltage, current;
	char init[BN_SCPI_SEQ_MAX][BN_SCPI_LINE_LEN];
	int n_init;
	char safe[BN_SCPI_SEQ_MAX][BN_SCPI_LINE_LEN];
	int n_safe;
	char err_query[BN_SCPI_LINE_LEN]; /* "" when none */
	char err_ok[BN_SCPI_LINE_LEN];    /* fnmatch pattern of "no error" */
};

/* Parse a dialect file. BN_ERR_IO when it cannot be read, BN_ERR_DATA
 * "FILE: key \"commands.on\": ..." when it is wrong. */
int bn_scpi_dialect_load(const char *path, struct bn_scpi_dialect *d, struct bn_err *err);
/* The file of a bench.conf dialect value: a readable path as it is, else
 * DATADIR/profiles/instruments/NAME.json for its stem NAME. */
void bn_scpi_dialect_path(const char *file, const char *datadir, char *buf, size_t len);

struct bn_scpi {
	struct bn_serial *ser;
	struct bn_scpi_dialect d;
	int timeout_ms;
	int retries;
	char idn[BN_SCPI_LINE_LEN]; /* the instrument's identity reply */
};

/* From the backend's open arguments: o->spec "PORT[@BAUD]" (default: the
 * dialect's baud), o->file the dialect, which must be of kind want. Opens
 * the port, identifies the instrument (a reply not matching the dialect's
 * pattern is BN_ERR_DATA naming both), then sends the init sequence. On
 * error nothing is left open. */
int bn_scpi_open(struct bn_scpi *c, const struct bn_backend_open *o, enum bn_scpi_kind want,
		 struct bn_err *err);
/* Send one line (the line end appended), then the error query if the
 * dialect has one: a reply not matching err_ok is BN_ERR_DATA. */
int bn_scpi_send(struct bn_scpi *c, const char *line, struct bn_err *err);
/* Send a dialect command, with value for the setters. */
int bn_scpi_command(struct bn_scpi *c, enum bn_scpi_cmd cmd, double value, struct bn_err *err);
/* Send a query and read its reply line, input flushed first. On a
 * time-out it is sent again, c->retries times, then BN_ERR_TIMEOUT "PORT:
 * QUERY: no answer in N ms (R retries)". The other end gone: BN_ERR_FAULT
 * "PORT: QUERY: instrument lost (...)". */
int bn_scpi_query(struct bn_scpi *c, const char *query, char *reply, size_t cap,
		  struct bn_err *err);
/* A query whose reply is a number (after q's prefix, before its suffix). */
int bn_scpi_query_num(struct bn_scpi *c, const struct bn_scpi_query *q, double *out,
		      struct bn_err *err);
/* Send every command of the safe sequence, each tried whatever the others
 * do; returns the first error. */
int bn_scpi_safe(struct bn_scpi *c, struct bn_err *err);
/* "IDN-REPLY on PORT", for the report. */
void bn_scpi_identity(void *priv, char *buf, size_t len);
/* Safe sequence (errors logged), then close the port. Zeroed: no-op. */
void bn_scpi_close(struct bn_scpi *c);

/* Parse a reply as q describes: BN_ERR_DATA "WHAT: expected a number
 * [with unit \"V\"], got \"REPLY\"". */
int bn_scpi_parse_num(const struct bn_scpi_query *q, const char *reply, double *out,
		      const char *what, struct bn_err *err);

#endif
