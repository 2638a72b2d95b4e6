/* The twin's SCPI instruments (twin_instr.h). */
#include "twin_instr.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const idn[] = {
	[TWIN_LOAD] = "RIGOL TECHNOLOGIES,DL3021,DL3A000000001,00.01.02.00.01",
	[TWIN_SUPPLY] = "RIGOL TECHNOLOGIES,DP832,DP8C000000001,00.01.14",
	[TWIN_PPS] = "RIGOL TECHNOLOGIES,DP711,DP7A000000001,00.01.05",
};

#define SCPI_UNDEFINED_HEADER (-113)

static void log_line(struct twin_instr *in, bn_time_us t, const char *dir, const char *text)
{
	if (!in->log)
		return;
	fprintf(in->log, "%.6f\t%s\t%s\n", bn_time_to_s(t), dir, text);
	fflush(in->log);
}

void twin_instr_note(struct twin_instr *in, bn_time_us t, const char *text)
{
	log_line(in, t, "!", text);
}

/* "ON"/"1" -> 1, "OFF"/"0" -> 0, else -1. */
static int onoff(const char *s)
{
	if (!strcasecmp(s, "ON") || !strcmp(s, "1"))
		return 1;
	if (!strcasecmp(s, "OFF") || !strcmp(s, "0"))
		return 0;
	return -1;
}

static bool number(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return end != s && *end == '\0' && errno == 0;
}

static void syst_err(struct twin_instr *in, char *reply, size_t len)
{
	snprintf(reply, len, in->err ? "%d,\"Undefined header\"" : "0,\"No error\"", in->err);
	in->err = 0;
}

static void load_apply(struct twin_instr *in)
{
	twin_world_load(in->tw, in->on, in->set_a);
}

static void supply_apply(struct twin_instr *in)
{
	twin_world_supply(in->tw, in->on, in->set_v, in->ilim_a);
}

/* The reply to one line of the load ("" for none); false: unknown. */
static bool load_line(struct twin_instr *in, const char *cmd, const char *arg, char *reply,
		      size_t len)
{
	double x;
	int b;

	if (!strcasecmp(cmd, ":SYST:ERR?") && !*arg)
		syst_err(in, reply, len);
	else if (!strcasecmp(cmd, ":SOUR:FUNC") && !strcasecmp(arg, "CURR"))
		{} /* constant current is all the twin's load does */
	else if (!strcasecmp(cmd, ":SOUR:CURR:LEV") && number(arg, &x) && x >= 0)
		{ in->set_a = x; load_apply(in); }
	else if (!strcasecmp(cmd, ":SOUR:INP:STAT") && (b = onoff(arg)) >= 0)
		{ in->on = b; load_apply(in); }
	else if (!strcasecmp(cmd, ":MEAS:VOLT?") && !*arg)
		snprintf(reply, len, "%.4f", twin_world_load_v(in->tw));
	else if (!strcasecmp(cmd, ":MEAS:CURR?") && !*arg)
		snprintf(reply, len, "%.4f", twin_world_load_a(in->tw));
	else
		return false;
	return true;
}

static bool supply_line(struct twin_instr *in, const char *cmd, const char *arg, char *reply,
			size_t len)
{
	double x;
	int b;

	if (!strcasecmp(cmd, ":SYST:ERR?") && !*arg)
		syst_err(in, reply, len);
	else if (!strcasecmp(cmd, ":SOUR1:VOLT") && number(arg, &x) && x >= 0)
		{ in->set_v = x; supply_apply(in); }
	else if (!strcasecmp(cmd, ":SOUR1:CURR") && number(arg, &x) && x >= 0)
		{ in->ilim_a = x; supply_apply(in); }
	else if (!strcasecmp(cmd, ":OUTP") && !strncasecmp(arg, "CH1,", 4) && (b = onoff(arg + 4)) >= 0)
		{ in->on = b; supply_apply(in); }
	else if (!strcasecmp(cmd, ":MEAS:VOLT?") && !strcasecmp(arg, "CH1"))
		snprintf(reply, len, "%.3f", twin_world_supply_v(in->tw));
	else if (!strcasecmp(cmd, ":MEAS:CURR?") && !strcasecmp(arg, "CH1"))
		snprintf(reply, len, "%.3f", twin_world_supply_a(in->tw));
	else
		return false;
	return true;
}

static void served(struct twin_instr *in, const char *chan, double v, char *reply, size_t len)
{
	snprintf(reply, len, "%.4f", v);
	if (!in->served++)
		in->first_served_t = in->t;
	if (in->samples) {
		fprintf(in->samples, "%.6f\t%s\t%s\n", bn_time_to_s(in->t), chan, reply);
		fflush(in->samples);
	}
}

/* What libsigrok 0.5.2's scpi-pps sends a DP711 (rigol_dp700_cmd). */
static bool pps_line(struct twin_instr *in, const char *cmd, const char *arg, char *reply,
		     size_t len)
{
	double v = twin_world_vbus_v(in->tw), i = twin_world_ibus_a(in->tw);

	if (!strcasecmp(cmd, "SYST:REMOTE") || !strcasecmp(cmd, "SYST:LOCAL") ||
	    (!strcasecmp(cmd, "SYST:BEEP:STAT") && onoff(arg) >= 0) ||
	    (!strcasecmp(cmd, ":INST:NSEL") && !strcmp(arg, "1")))
		{} /* nothing to do: one output, no front panel, no beeper */
	else if (!strcasecmp(cmd, "SYST:BEEP:STAT?"))
		snprintf(reply, len, "0");
	else if (!strcasecmp(cmd, ":MEAS:VOLT?"))
		served(in, "V1", v, reply, len);
	else if (!strcasecmp(cmd, ":MEAS:CURR?"))
		served(in, "I1", i, reply, len);
	else if (!strcasecmp(cmd, ":MEAS:POWE?"))
		served(in, "P1", v * i, reply, len);
	else if (!strcasecmp(cmd, ":OUTP?"))
		snprintf(reply, len, "1");
	else
		return false;
	return true;
}

static void on_line(void *user, struct twin_link *l, int conn, char *line)
{
	struct twin_instr *in = user;
	char cmd[TWIN_LINK_LINE], reply[256] = "", *arg;
	bool known;

	log_line(in, in->t, "<", line);
	if (!(line[strlen(line) - 1] == '?' && !strcmp(line, in->prev)))
		in->lines++;
	snprintf(in->prev, sizeof(in->prev), "%s", line);
	if (in->vanish_after >= 0 && in->lines > in->vanish_after) {
		twin_instr_note(in, in->t, "vanished (--*-vanish-after): the link is closed for good");
		twin_link_drop(l);
		return;
	}
	if (in->stall_after >= 0 && in->lines > in->stall_after) {
		if (!in->stalled)
			twin_instr_note(in, in->t, "stalled (--*-stall-after): no more answers");
		in->stalled = true;
		return;
	}
	snprintf(cmd, sizeof(cmd), "%s", line);
	arg = strchr(cmd, ' ');
	if (arg)
		*arg++ = '\0';
	else
		arg = cmd + strlen(cmd);
	if (!strcmp(cmd, "*IDN?") && !*arg) {
		snprintf(reply, sizeof(reply), "%s", idn[in->kind]);
		known = true;
	} else if (!strcmp(cmd, "*CLS") && !*arg) {
		in->err = 0;
		known = true;
	} else {
		known = in->kind == TWIN_LOAD	  ? load_line(in, cmd, arg, reply, sizeof(reply))
			: in->kind == TWIN_SUPPLY ? supply_line(in, cmd, arg, reply, sizeof(reply))
						  : pps_line(in, cmd, arg, reply, sizeof(reply));
	}
	if (!known) {
		in->err = SCPI_UNDEFINED_HEADER;
		twin_instr_note(in, in->t, "unknown command: not in the dialect");
		if (in->kind == TWIN_PPS && line[strlen(line) - 1] == '?')
			snprintf(reply, sizeof(reply), "0");
	}
	if (!reply[0])
		return;
	log_line(in, in->t, ">", reply);
	strcat(reply, "\n");
	if (!twin_link_send(l, conn, reply))
		twin_instr_note(in, in->t, "reply lost: nobody reads the link");
}

static void on_conn(void *user, struct twin_link *l, int conn, int event)
{
	struct twin_instr *in = user;
	char note[64];

	snprintf(note, sizeof(note), "client %d %s", conn, event ? "connected" : "closed");
	twin_instr_note(in, in->t, note);
}

void twin_instr_service(struct twin_instr *in, const struct pollfd *p, int n, bn_time_us t)
{
	in->t = t;
	twin_link_service(&in->link, p, n, on_line, on_conn, in);
	twin_link_housekeep(&in->link, t);
}
