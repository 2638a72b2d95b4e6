/* The twin's telemetry console (twin_console.h). */
#include "twin_console.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define VBUS_MV_MAX 30000 /* the console format's range */

int twin_console_open(struct twin_console *c, const struct twin_world *tw, FILE *log,
		      struct bn_err *err)
{
	memset(c, 0, sizeof(*c));
	c->tw = tw;
	c->log = log;
	c->ilim_ma = -1;
	return twin_link_pty(&c->link, "console", err);
}

static void emit(struct twin_console *c, bn_time_us t, const char *line)
{
	char buf[600];
	bool ok;

	snprintf(buf, sizeof(buf), "%s\n", line);
	ok = twin_link_send(&c->link, 0, buf);
	if (ok)
		c->sent++;
	else
		c->dropped++;
	if (c->log) {
		fprintf(c->log, "%.6f\t%s\t%s\n", bn_time_to_s(t), ok ? ">" : "dropped", line);
		fflush(c->log);
	}
}

void twin_console_telemetry(struct twin_console *c, bn_time_us t, const char *key, const char *val)
{
	char line[512];
	long vbus_mv;

	if (c->link.gone)
		return;
	if (!strcmp(key, "port"))
		snprintf(c->port, sizeof(c->port), "%s", val);
	else if (!strcmp(key, "state"))
		snprintf(c->state, sizeof(c->state), "%s", val);
	else if (!strcmp(key, "ilim_ma"))
		c->ilim_ma = strtol(val, NULL, 10);
	if (!strcmp(key, "config")) {
		snprintf(line, sizeof(line), "cfg value=%s", val);
	} else if (strcmp(key, "port") && strcmp(key, "state") && strcmp(key, "ilim_ma")) {
		snprintf(line, sizeof(line), "fw %s=%s", key, val);
	} else if (c->port[0]) {
		vbus_mv = lround(twin_world_vbus_v(c->tw) * 1000.0);
		vbus_mv = vbus_mv < 0 ? 0 : vbus_mv > VBUS_MV_MAX ? VBUS_MV_MAX : vbus_mv;
		snprintf(line, sizeof(line), "bc12 port=%s", c->port);
		if (c->state[0])
			snprintf(line + strlen(line), sizeof(line) - strlen(line), " state=%s", c->state);
		if (c->ilim_ma >= 0)
			snprintf(line + strlen(line), sizeof(line) - strlen(line), " ilim_ma=%ld",
				 c->ilim_ma);
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " vbus_mv=%ld", vbus_mv);
	} else if (!strcmp(key, "state")) {
		snprintf(line, sizeof(line), "bc12 state=%s", c->state);
	} else {
		return; /* a limit before any port: said with the port */
	}
	emit(c, t, line);
}

void twin_console_service(struct twin_console *c, const struct pollfd *p, int n, bn_time_us t)
{
	char drain[256];

	if (c->link.gone)
		return;
	for (int i = 0; i < n; i++)
		if (p[i].fd == c->link.master && (p[i].revents & POLLIN))
			while (read(c->link.master, drain, sizeof(drain)) > 0)
				; /* nothing is sent to a console */
	twin_link_housekeep(&c->link, t);
}

void twin_console_hangup(struct twin_console *c, bn_time_us t)
{
	if (c->link.gone)
		return;
	twin_link_drop(&c->link);
	if (c->log) {
		fprintf(c->log, "%.6f\thangup\tthe console went away (--console-hangup-after-s)\n",
			bn_time_to_s(t));
		fflush(c->log);
	}
}

void twin_console_close(struct twin_console *c)
{
	twin_link_close(&c->link);
}
