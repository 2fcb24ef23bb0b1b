# tbmesh: one GNU make Makefile.
#
#   make                 build the programs into $(B)/
#   make check           install missing dependencies, build, run every test
#   make bench           run the benchmarks under tests/bench/
#   make demo            build and start a simulated cluster
#   make install         PREFIX=/usr/local DESTDIR= (the dashboard in $(DATADIR)/web;
#                        the launchd plist and systemd unit name $(SBINDIR)/tbagentd)
#   make SANITIZE=address,undefined WERROR=1 B=build-san check
#
# Modules are found by wildcard: proto/*.c -> libproto.a, agent/*.c (but
# main.c) -> libagent.a, controller/ctl_*.c -> libctl.a (tbctl's, which links
# proto only), the other controller/*.c (but tbcontrollerd.c) ->
# libcontroller.a; tests/unit/test_*.c -> one cmocka binary each.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/tbmesh
SYSCONFDIR ?= $(PREFIX)/etc
DESTDIR ?=
B ?= build
PKG_CONFIG ?= pkg-config
VERSION := 0.1.0

UNAME_S := $(shell uname -s)

AGENT_PKGS := libmicrohttpd libcurl libcjson
CONTROLLER_PKGS := libmicrohttpd libcjson sqlite3 gnutls libssh
CTL_PKGS := libcurl libcjson
TEST_PKGS := cmocka
ALL_PKGS := $(sort $(AGENT_PKGS) $(CONTROLLER_PKGS) $(CTL_PKGS) $(TEST_PKGS))

CFLAGS ?= -O2 -g
WARN := -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wpointer-arith -Wformat=2 -Wno-format-nonliteral
ifeq ($(WERROR),1)
WARN += -Werror
endif
ifneq ($(SANITIZE),)
SANFLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif
ifeq ($(UNAME_S),Darwin)
OSDEFS := -D_DARWIN_C_SOURCE
else
OSDEFS := -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
# Load only the libraries a program really calls (keeps the agent's RSS low).
OSLDFLAGS := -Wl,--as-needed
endif

pkg_cflags = $(shell $(PKG_CONFIG) --cflags $(1) 2>/dev/null)
pkg_libs = $(shell $(PKG_CONFIG) --libs $(1) 2>/dev/null)

ALL_CPPFLAGS := $(OSDEFS) -DTBMESH_VERSION='"$(VERSION)"' -DTBMESH_DATADIR='"$(DATADIR)"' -Iproto -Iagent -Icontroller \
	$(call pkg_cflags,$(ALL_PKGS)) $(CPPFLAGS)
ALL_CFLAGS := $(WARN) $(SANFLAGS) $(CFLAGS)
ALL_LDFLAGS := $(OSLDFLAGS) $(SANFLAGS) $(LDFLAGS)
AGENT_LIBS := $(call pkg_libs,$(AGENT_PKGS)) -lpthread -lm
CONTROLLER_LIBS := $(call pkg_libs,$(CONTROLLER_PKGS)) -lpthread -lm
CTL_LIBS := $(call pkg_libs,$(CTL_PKGS)) -lm
TEST_LIBS := $(call pkg_libs,$(TEST_PKGS)) $(call pkg_libs,$(ALL_PKGS)) -lpthread -lm

PROTO_SRC := $(sort $(wildcard proto/*.c))
AGENT_SRC := $(sort $(filter-out agent/main.c,$(wildcard agent/*.c)))
CTL_SRC := $(sort $(wildcard controller/ctl_*.c))
CONTROLLER_SRC := $(sort $(filter-out controller/tbcontrollerd.c controller/tbctl.c \
	$(CTL_SRC),$(wildcard controller/*.c)))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))

PROTO_OBJ := $(PROTO_SRC:%.c=$(B)/%.o)
AGENT_OBJ := $(AGENT_SRC:%.c=$(B)/%.o)
CTL_OBJ := $(CTL_SRC:%.c=$(B)/%.o)
CONTROLLER_OBJ := $(CONTROLLER_SRC:%.c=$(B)/%.o)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)

WEB_FILES := $(sort $(wildcard web/*.html web/*.css))
WEB_JS := $(sort $(wildcard web/js/*.js))

PROGRAMS := $(B)/tbagentd
ifneq ($(wildcard controller/tbcontrollerd.c),)
PROGRAMS += $(B)/tbcontrollerd
endif
ifneq ($(wildcard controller/tbctl.c),)
PROGRAMS += $(B)/tbctl
endif
LIBS_ALL := $(B)/libcontroller.a $(B)/libctl.a $(B)/libagent.a $(B)/libproto.a

.PHONY: all check unit integration bench demo deps install uninstall clean distclean FORCE

all: $(PROGRAMS) $(UNIT_BIN) $(B)/tests/bench/httpget $(B)/tests/bench/loadgen \
	$(B)/tests/bench/bare204 $(B)/tests/bench/wiring_bench $(B)/tests/bench/placebench

$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# DATADIR is compiled in (tbcontrollerd's default catalog): the objects that
# use it depend on a stamp holding its value, rewritten only when it changes,
# so that "make install PREFIX=/opt/tb" rebuilds them instead of installing
# programs that still name the PREFIX of the last build.
DATADIR_STAMP := $(B)/datadir.stamp
DATADIR_OBJ := $(patsubst %.c,$(B)/%.o,$(shell grep -l TBMESH_DATADIR proto/*.c agent/*.c \
	controller/*.c 2>/dev/null))
$(DATADIR_OBJ): $(DATADIR_STAMP)
$(DATADIR_STAMP): FORCE
	@mkdir -p $(@D)
	@if [ "$$(cat $@ 2>/dev/null)" != '$(DATADIR)' ]; then printf '%s\n' '$(DATADIR)' >$@; fi
FORCE:

# The installed launchd plist, systemd unit and man pages name the installed
# programs, configuration and data: the /usr/local paths of packaging/ and
# man/ become PREFIX's.
INSTALL_SED := sed -e 's|/usr/local/sbin/|$(SBINDIR)/|g' -e 's|/usr/local/etc/|$(SYSCONFDIR)/|g' \
	-e 's|/usr/local/share/tbmesh|$(DATADIR)|g'

$(B)/libproto.a: $(PROTO_OBJ)
	$(AR) rcs $@ $^

$(B)/libagent.a: $(AGENT_OBJ)
	$(AR) rcs $@ $^

$(B)/libcontroller.a: $(CONTROLLER_OBJ)
	$(AR) rcs $@ $^

$(B)/libctl.a: $(CTL_OBJ)
	$(AR) rcs $@ $^

$(B)/tbagentd: $(B)/agent/main.o $(B)/libagent.a $(B)/libproto.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(AGENT_LIBS)

$(B)/tbcontrollerd: $(B)/controller/tbcontrollerd.o $(B)/libcontroller.a $(B)/libproto.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CONTROLLER_LIBS)

$(B)/tbctl: $(B)/controller/tbctl.o $(B)/libctl.a $(B)/libproto.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CTL_LIBS)

$(B)/tests/%: $(B)/tests/unit/%.o $(LIBS_ALL)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(TEST_LIBS)


# Installs what is missing (apt-get or brew), then builds and runs everything.
$(B)/tests/bench/httpget: $(B)/tests/bench/httpget.o
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pkg_libs,libcurl)

$(B)/tests/bench/loadgen: $(B)/tests/bench/loadgen.o $(B)/tests/bench/lg_report.o $(B)/libproto.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pkg_libs,libcurl libcjson) -lm

$(B)/tests/bench/placebench: $(B)/tests/bench/placebench.o $(B)/libcontroller.a $(B)/libproto.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CONTROLLER_LIBS)

$(B)/tests/bench/bare204: $(B)/tests/bench/bare204.o
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pkg_libs,libmicrohttpd) -lpthread

$(B)/tests/bench/wiring_bench: $(B)/tests/bench/wiring_bench.o $(LIBS_ALL)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(TEST_LIBS)

check: deps
	@$(MAKE) --no-print-directory all
	@B=$(B) SANITIZE=$(SANITIZE) tests/run.sh

unit: all
	@B=$(B) tests/run.sh unit

integration: all
	@B=$(B) tests/run.sh integration

bench: deps
	@$(MAKE) --no-print-directory all
	@B=$(B) tests/bench/run.sh

demo: deps
	@$(MAKE) --no-print-directory all
	@B=$(B) packaging/demo.sh

deps:
	@packaging/deps.sh --check >/dev/null 2>&1 || packaging/deps.sh

install: $(PROGRAMS)
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DATADIR)
	install -m 0755 $(B)/tbagentd $(B)/tbcontrollerd $(DESTDIR)$(SBINDIR)/
	install -m 0755 $(B)/tbctl $(DESTDIR)$(BINDIR)/tbctl
	for m in tbagentd.8 tbcontrollerd.8; do \
		$(INSTALL_SED) man/$$m >$(DESTDIR)$(MANDIR)/man8/$$m || exit 1; done
	$(INSTALL_SED) man/tbctl.1 >$(DESTDIR)$(MANDIR)/man1/tbctl.1
	chmod 0644 $(DESTDIR)$(MANDIR)/man8/tbagentd.8 $(DESTDIR)$(MANDIR)/man8/tbcontrollerd.8 \
		$(DESTDIR)$(MANDIR)/man1/tbctl.1
	install -m 0644 packaging/tbagentd.conf.example $(DESTDIR)$(DATADIR)/tbagentd.conf.example
	$(INSTALL_SED) packaging/com.tbmesh.tbagentd.plist >$(DESTDIR)$(DATADIR)/com.tbmesh.tbagentd.plist
	$(INSTALL_SED) packaging/tbagentd.service >$(DESTDIR)$(DATADIR)/tbagentd.service
	chmod 0644 $(DESTDIR)$(DATADIR)/com.tbmesh.tbagentd.plist $(DESTDIR)$(DATADIR)/tbagentd.service
	install -d $(DESTDIR)$(DATADIR)/web/js
	install -m 0644 $(WEB_FILES) $(DESTDIR)$(DATADIR)/web/
	install -m 0644 $(WEB_JS) $(DESTDIR)$(DATADIR)/web/js/
	install -m 0644 data/catalog.json $(DESTDIR)$(DATADIR)/catalog.json

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/tbagentd $(DESTDIR)$(MANDIR)/man8/tbagentd.8
	rm -f $(DESTDIR)$(SBINDIR)/tbcontrollerd $(DESTDIR)$(MANDIR)/man8/tbcontrollerd.8
	rm -f $(DESTDIR)$(BINDIR)/tbctl $(DESTDIR)$(MANDIR)/man1/tbctl.1
	rm -f $(DESTDIR)$(DATADIR)/tbagentd.conf.example
	rm -f $(DESTDIR)$(DATADIR)/com.tbmesh.tbagentd.plist $(DESTDIR)$(DATADIR)/tbagentd.service
	rm -f $(addprefix $(DESTDIR)$(DATADIR)/,$(WEB_FILES) $(WEB_JS))
	-rmdir $(DESTDIR)$(DATADIR)/web/js $(DESTDIR)$(DATADIR)/web 2>/dev/null
	rm -f $(DESTDIR)$(DATADIR)/catalog.json
	-rmdir $(DESTDIR)$(DATADIR) 2>/dev/null

clean:
	rm -rf $(B)

distclean:
	rm -rf build build-*

-include $(shell find $(B) -name '*.d' 2>/dev/null)
