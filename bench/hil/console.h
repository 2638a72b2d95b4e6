/* The real device's telemetry console (bench.conf console = PORT[@BAUD]):
 * text lines on a serial port, parsed into records. The line format is
 * docs/console-telemetry.md: "TAG key=value ...", e.g.
 *     bc12 port=DCP ilim_ma=1500 vbus_mv=4920
 * Lines of other tags (the firmware's own logs) are skipped; unknown keys
 * are ignored (newer firmware may say more); a malformed line (a bad
 * number, a value out of range, a missing required key) is counted and
 * logged with its text, never fatal: one corrupt line must not end a
 * 45-minute run.
 *
 * The parser is a pure function (bn_console_parse_line); the backend
 * reads lines through hil/serial.h and hands out records in order. */
#ifndef BN_HIL_CONSOLE_H
#define BN_HIL_CONSOLE_H

#include "core/err.h"
#include "core/port_type.h"

/* A value the line did not give. */
#define BN_CON_ABSENT (-1)
#define BN_CON_STATE_LEN 32

enum bn_con_kind {
	BN_CON_PORT = 1,  /* bc12 port=... : the detected port type, its current limit */
	BN_CON_STATE,     /* bc12 state=... without port=: the detection state machine */
	BN_CON_BAT,       /* bat mv=... : the battery */
	BN_CON_CFG,       /* cfg value=... : the configuration the host chose */
};

struct bn_con_rec {
	enum bn_con_kind kind;
	/* BN_CON_PORT (state may come too) and BN_CON_STATE */
	enum bn_port_type port;
	char state[BN_CON_STATE_LEN];        /* "" when absent */
	int ilim_ma, vbus_mv;                /* BN_CON_ABSENT when absent */
	/* BN_CON_BAT */
	int bat_mv, bat_ma, soc_pct;         /* bat_ma < 0: discharging */
	/* BN_CON_CFG */
	int cfg_value, max_power_ma;
};

/* Returns 1 with a record in rec, 0 for a line that is not telemetry
 * (skipped), BN_ERR_DATA for a malformed one: err says what, quoting the
 * line. */
int bn_console_parse_line(const char *line, struct bn_con_rec *rec, struct bn_err *err);

struct bn_serial;
struct bn_console;

/* spec: "PORT[@BAUD]" (bench.conf console), e.g. "/dev/ttyACM0@115200". */
int bn_console_open(const char *spec, struct bn_console **out, struct bn_err *err);
/* The next record, in the order the device sent them. BN_ERR_TIMEOUT when
 * none came within timeout_ms (silence, or only logs and malformed
 * lines); BN_ERR_IO when the port is gone. */
int bn_console_next(struct bn_console *c, struct bn_con_rec *rec, int timeout_ms,
		    struct bn_err *err);
/* Malformed lines so far, and the message of the last one ("" if none). */
int bn_console_malformed(const struct bn_console *c, const char **last);
/* Lines skipped as not telemetry (firmware logs, unknown tags). */
int bn_console_skipped(const struct bn_console *c);
void bn_console_close(struct bn_console *c);

#endif
