# tbmesh: one GNU make Makefile.
#
#   make                 build the programs into $(B)/
#   make check           install missing dependencies, build, run every test
#   make check-deps      the dependency installer as a fresh machine sees it
#   make check-macos     compile every source file for aarch64-macos (zig cc)
#   make bench           run the benchmarks under tests/bench/
#   make demo            build and start a simulated cluster
#   make install         PREFIX=/usr/local DESTDIR=: the programs, man pages, example
#                        configurations and catalog ($(DATADIR)); the systemd units
#                        into SYSTEMDUNITDIR (Linux), the launchd plists into
#                        LAUNCHDDIR (macOS; empty: not installed), with a copy of
#                        each in $(DATADIR), all naming PREFIX's paths
#   make uninstall       removes what make install placed (same variables)
#   make dist            $(B)/tbmesh-$(VERSION).tar.gz: the files git tracks, under
#                        tbmesh-$(VERSION)/ (the release; packaging/homebrew/tbmesh.rb)
#   make SANITIZE=address,undefined WERROR=1 B=build-san check
#
# Modules are found by wildcard: proto/*.c and proto/util/*.c -> libproto.a,
# agent/*.c (but main.c) -> libagent.a, controller/ctl/*.c (but tbctl.c) ->
# libctl.a (tbctl's, which links proto only), controller/{engine,store,run,
# api}/*.c and controller/*.c (but tbcontrollerd.c) -> libcontroller.a;
# tests/unit/test_*.c -> one cmocka binary each.
#
# Each folder is compiled with the include paths of the layers below it only
# (INC_<folder>), so that an include that goes up a layer does not compile:
#   proto/util < proto < controller/engine < store < run < api < controller/
#   proto < agent;  proto < controller/ctl (tbctl never sees the daemon's folders)
# tests/layout.sh checks the same order and where each library may be included.
# The dashboard (web/) and the model catalog (data/catalog.json) are
# compiled into tbcontrollerd: packaging/embed.sh writes them as C arrays
# into $(B)/gen/, built into libcontroller.a.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/tbmesh
SYSCONFDIR ?= $(PREFIX)/etc
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
LAUNCHDDIR ?= /Library/LaunchDaemons
DESTDIR ?=
B ?= build
PKG_CONFIG ?= pkg-config
# The release: the programs' --version (-DTBMESH_VERSION; proto/util/version.h's
# fallback repeats it), the make dist tarball, the Homebrew formula's url.
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

# Each module's flags asked for alone: one that is missing (cmocka, where
# only the programs are built) does not lose the others'.
ALL_CPPFLAGS := $(OSDEFS) -DTBMESH_VERSION='"$(VERSION)"' \
	$(sort $(foreach m,$(ALL_PKGS),$(call pkg_cflags,$(m)))) $(CPPFLAGS)

# The layers' include paths (see the top of this file).
INC_proto/util := -Iproto/util
INC_proto := -Iproto $(INC_proto/util)
INC_agent := $(INC_proto) -Iagent
INC_controller/engine := $(INC_proto) -Icontroller/engine
INC_controller/store := $(INC_controller/engine) -Icontroller/store
INC_controller/run := $(INC_controller/store) -Icontroller/run
INC_controller/api := $(INC_controller/run) -Icontroller/api
INC_controller := $(INC_controller/api) -Icontroller
INC_controller/ctl := $(INC_proto) -Icontroller/ctl
INC_ALL := $(INC_controller) -Icontroller/ctl -Iagent
INC_tests/unit := $(INC_ALL)
INC_tests/bench := $(INC_ALL)
INC_tests/fuzz := $(INC_ALL)
# A source's include paths: its folder's.
inc_of = $(INC_$(patsubst %/,%,$(dir $(1))))
ALL_CFLAGS := $(WARN) $(SANFLAGS) $(CFLAGS)
ALL_LDFLAGS := $(OSLDFLAGS) $(SANFLAGS) $(LDFLAGS)
AGENT_LIBS := $(call pkg_libs,$(AGENT_PKGS)) -lpthread -lm
CONTROLLER_LIBS := $(call pkg_libs,$(CONTROLLER_PKGS)) -lpthread -lm
CTL_LIBS := $(call pkg_libs,$(CTL_PKGS)) -lm
TEST_LIBS := $(call pkg_libs,$(TEST_PKGS)) $(call pkg_libs,$(ALL_PKGS)) -lpthread -lm

CONTROLLER_DIRS := controller/engine controller/store controller/run controller/api controller
PROTO_SRC := $(sort $(wildcard proto/*.c proto/util/*.c))
AGENT_SRC := $(sort $(filter-out agent/main.c,$(wildcard agent/*.c)))
CTL_SRC := $(sort $(filter-out controller/ctl/tbctl.c,$(wildcard controller/ctl/*.c)))
CONTROLLER_SRC := $(sort $(filter-out controller/tbcontrollerd.c, \
	$(foreach d,$(CONTROLLER_DIRS),$(wildcard $(d)/*.c))))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))

PROTO_OBJ := $(PROTO_SRC:%.c=$(B)/%.o)
AGENT_OBJ := $(AGENT_SRC:%.c=$(B)/%.o)
CTL_OBJ := $(CTL_SRC:%.c=$(B)/%.o)
CONTROLLER_OBJ := $(CONTROLLER_SRC:%.c=$(B)/%.o) $(B)/gen/embedded_web.o $(B)/gen/embedded_catalog.o
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)

WEB_FILES := $(sort $(wildcard web/*.html web/*.css))
WEB_JS := $(sort $(wildcard web/js/*.js))

PROGRAMS := $(B)/tbagentd
ifneq ($(wildcard controller/tbcontrollerd.c),)
PROGRAMS += $(B)/tbcontrollerd
endif
ifneq ($(wildcard controller/ctl/tbctl.c),)
PROGRAMS += $(B)/tbctl
endif
LIBS_ALL := $(B)/libcontroller.a $(B)/libctl.a $(B)/libagent.a $(B)/libproto.a

.PHONY: all check check-deps check-macos unit integration bench demo deps install uninstall \
	clean distclean

# fleet (tests/bench/controller_fleet.sh) holds its 10,000 connections with
# epoll: Linux only.
BENCH_LINUX := $(if $(filter Linux,$(UNAME_S)),$(B)/tests/bench/fleet)

all: $(PROGRAMS) $(UNIT_BIN) $(B)/tests/bench/httpget $(B)/tests/bench/loadgen \
	$(B)/tests/bench/bare204 $(B)/tests/bench/wiring_bench $(B)/tests/bench/placebench \
	$(BENCH_LINUX)

$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(call inc_of,$<) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# The embedded dashboard and catalog: generated sources, compiled as C99
# data (their paths are the URL paths, "/index.html", "/js/app.js").
$(B)/gen/embedded_web.c: packaging/embed.sh $(WEB_FILES) $(WEB_JS)
	@mkdir -p $(@D)
	packaging/embed.sh web web $(WEB_FILES) $(WEB_JS) >$@.tmp && mv $@.tmp $@

$(B)/gen/embedded_catalog.c: packaging/embed.sh data/catalog.json
	@mkdir -p $(@D)
	packaging/embed.sh catalog data data/catalog.json >$@.tmp && mv $@.tmp $@

$(B)/gen/%.o: $(B)/gen/%.c controller/store/embedded.h
	$(CC) $(ALL_CPPFLAGS) $(INC_controller/store) $(ALL_CFLAGS) -c $< -o $@


# The installed launchd plist, systemd unit and man pages name the installed
# programs, configuration and data: the /usr/local paths of packaging/ and
# man/ become PREFIX's.
INSTALL_SED := sed -e 's|/usr/local/sbin/|$(SBINDIR)/|g' -e 's|/usr/local/etc/|$(SYSCONFDIR)/|g' \
	-e 's|/usr/local/share/tbmesh|$(DATADIR)|g'

# Each archive is made anew: ar would keep the members of sources since
# deleted or renamed, and link them.
$(B)/libproto.a: $(PROTO_OBJ)
	rm -f $@ && $(AR) rcs $@ $^

$(B)/libagent.a: $(AGENT_OBJ)
	rm -f $@ && $(AR) rcs $@ $^

$(B)/libcontroller.a: $(CONTROLLER_OBJ)
	rm -f $@ && $(AR) rcs $@ $^

$(B)/libctl.a: $(CTL_OBJ)
	rm -f $@ && $(AR) rcs $@ $^

$(B)/tbagentd: $(B)/agent/main.o $(B)/libagent.a $(B)/libproto.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(AGENT_LIBS)

$(B)/tbcontrollerd: $(B)/controller/tbcontrollerd.o $(B)/libcontroller.a $(B)/libproto.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CONTROLLER_LIBS)

$(B)/tbctl: $(B)/controller/ctl/tbctl.o $(B)/libctl.a $(B)/libproto.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CTL_LIBS)

$(B)/tests/%: $(B)/tests/unit/%.o $(LIBS_ALL)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(TEST_LIBS)


# Installs what is missing (apt-get or brew), then builds and runs everything.
$(B)/tests/bench/httpget: $(B)/tests/bench/httpget.o
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pkg_libs,libcurl)

$(B)/tests/bench/loadgen: $(B)/tests/bench/loadgen.o $(B)/tests/bench/lg_report.o $(B)/libproto.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pkg_libs,libcurl libcjson) -lm

$(B)/tests/bench/fleet: $(B)/tests/bench/fleet.o $(B)/tests/bench/lg_report.o $(B)/libproto.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pkg_libs,libcjson) -lm

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

# Both are also part of make check (tests/integration/).
check-deps:
	@bash tests/integration/deps_fresh.sh

check-macos:
	@bash tests/integration/macos_compile.sh

# make -s print-VAR: a variable's value, for scripts that need the flags
# (tests/integration/macos_compile.sh: make -s print-OSDEFS UNAME_S=Darwin).
print-%:
	@printf '%s\n' '$($*)'

# The service files name the installed programs and configuration (INSTALL_SED).
SYSTEMD_UNITS := tbagentd.service tbcontrollerd.service
LAUNCHD_PLISTS := com.tbmesh.tbagentd.plist com.tbmesh.tbcontrollerd.plist
# The Prometheus scrape configuration, alert rules and their tests, and the
# Grafana dashboard, installed as examples (DATADIR/prometheus, /grafana).
PROM_FILES := $(sort $(wildcard packaging/prometheus/*.yml))
# On macOS the controller's plist keeps its inventory in /var/lib/tbcontrollerd
# (tbcontrollerd's default), which make install creates with the plists.
DARWIN_STATEDIR := /var/lib/tbcontrollerd
# The man pages name where the service files go, too.
MAN_SED := $(INSTALL_SED) \
	-e 's|/usr/local/lib/systemd/system|$(or $(SYSTEMDUNITDIR),$(PREFIX)/lib/systemd/system)|g' \
	-e 's|/Library/LaunchDaemons|$(or $(LAUNCHDDIR),/Library/LaunchDaemons)|g'

install: $(PROGRAMS)
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(DATADIR)
	install -m 0755 $(B)/tbagentd $(B)/tbcontrollerd $(DESTDIR)$(SBINDIR)/
	install -m 0755 $(B)/tbctl $(DESTDIR)$(BINDIR)/tbctl
	for m in tbagentd.8 tbcontrollerd.8; do \
		$(MAN_SED) man/$$m >$(DESTDIR)$(MANDIR)/man8/$$m || exit 1; done
	$(MAN_SED) man/tbctl.1 >$(DESTDIR)$(MANDIR)/man1/tbctl.1
	chmod 0644 $(DESTDIR)$(MANDIR)/man8/tbagentd.8 $(DESTDIR)$(MANDIR)/man8/tbcontrollerd.8 \
		$(DESTDIR)$(MANDIR)/man1/tbctl.1
	for m in $(notdir $(wildcard man/*.7)); do \
		$(MAN_SED) man/$$m >$(DESTDIR)$(MANDIR)/man7/$$m && \
		chmod 0644 $(DESTDIR)$(MANDIR)/man7/$$m || exit 1; done
	install -m 0644 packaging/tbagentd.conf.example data/catalog.json $(DESTDIR)$(DATADIR)/
	for f in tbcontrollerd.conf.example $(SYSTEMD_UNITS) $(LAUNCHD_PLISTS); do \
		$(INSTALL_SED) packaging/$$f >$(DESTDIR)$(DATADIR)/$$f && \
		chmod 0644 $(DESTDIR)$(DATADIR)/$$f || exit 1; done
	install -d $(DESTDIR)$(DATADIR)/prometheus $(DESTDIR)$(DATADIR)/grafana
	install -m 0644 $(PROM_FILES) $(DESTDIR)$(DATADIR)/prometheus/
	install -m 0644 packaging/grafana/tbmesh.json $(DESTDIR)$(DATADIR)/grafana/
ifeq ($(UNAME_S),Darwin)
ifneq ($(LAUNCHDDIR),)
	install -d $(DESTDIR)$(LAUNCHDDIR)
	for f in $(LAUNCHD_PLISTS); do \
		install -m 0644 $(DESTDIR)$(DATADIR)/$$f $(DESTDIR)$(LAUNCHDDIR)/$$f || exit 1; done
	install -d -m 0700 $(DESTDIR)$(DARWIN_STATEDIR)
endif
else ifneq ($(SYSTEMDUNITDIR),)
	install -d $(DESTDIR)$(SYSTEMDUNITDIR)
	for f in $(SYSTEMD_UNITS); do \
		install -m 0644 $(DESTDIR)$(DATADIR)/$$f $(DESTDIR)$(SYSTEMDUNITDIR)/$$f || exit 1; done
endif

# The state directory on macOS is left: it holds the inventory.
uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/tbagentd $(DESTDIR)$(MANDIR)/man8/tbagentd.8
	rm -f $(DESTDIR)$(SBINDIR)/tbcontrollerd $(DESTDIR)$(MANDIR)/man8/tbcontrollerd.8
	rm -f $(DESTDIR)$(BINDIR)/tbctl $(DESTDIR)$(MANDIR)/man1/tbctl.1
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man7/,$(notdir $(wildcard man/*.7)))
	rm -f $(addprefix $(DESTDIR)$(DATADIR)/,tbagentd.conf.example tbcontrollerd.conf.example \
		catalog.json $(SYSTEMD_UNITS) $(LAUNCHD_PLISTS))
	rm -f $(addprefix $(DESTDIR)$(DATADIR)/prometheus/,$(notdir $(PROM_FILES)))
	rm -f $(DESTDIR)$(DATADIR)/grafana/tbmesh.json
	-rmdir $(DESTDIR)$(DATADIR)/prometheus $(DESTDIR)$(DATADIR)/grafana $(DESTDIR)$(DATADIR) 2>/dev/null
ifeq ($(UNAME_S),Darwin)
ifneq ($(LAUNCHDDIR),)
	rm -f $(addprefix $(DESTDIR)$(LAUNCHDDIR)/,$(LAUNCHD_PLISTS))
endif
else ifneq ($(SYSTEMDUNITDIR),)
	rm -f $(addprefix $(DESTDIR)$(SYSTEMDUNITDIR)/,$(SYSTEMD_UNITS))
endif

# The release tarball: every file git tracks, as it is in the work tree, under
# tbmesh-$(VERSION)/; made in $(B)/dist.  Outside a git checkout (an unpacked
# tarball) there is no list of what belongs to the release, so it fails.
DIST := tbmesh-$(VERSION)
.PHONY: dist
dist:
	@if ! git rev-parse --git-dir >/dev/null 2>&1 || [ -n "$$(git rev-parse --show-prefix)" ]; then \
		echo "make dist: $(CURDIR) is not the top of a git checkout: the tarball is made" \
			"of the files git tracks" >&2; exit 1; fi
	@missing=$$(git ls-files --deleted); if [ -n "$$missing" ]; then \
		echo "make dist: tracked files missing from the work tree:" $$missing >&2; exit 1; fi
	@[ -z "$$(git status --porcelain --untracked-files=no)" ] || \
		echo "make dist: note: the tarball holds the uncommitted changes to tracked files"
	rm -rf $(B)/dist && mkdir -p $(B)/dist/$(DIST)
	git ls-files -z >$(B)/dist/files
	tar -cf $(B)/dist/files.tar --null -T $(B)/dist/files
	tar -xpf $(B)/dist/files.tar -C $(B)/dist/$(DIST)
	tar -cf $(B)/dist/$(DIST).tar -C $(B)/dist $(DIST)
	gzip -9n <$(B)/dist/$(DIST).tar >$(B)/$(DIST).tar.gz
	rm -rf $(B)/dist
	@echo "$(B)/$(DIST).tar.gz"
	@{ sha256sum $(B)/$(DIST).tar.gz 2>/dev/null || shasum -a 256 $(B)/$(DIST).tar.gz; } | \
		awk '{ print "sha256 \"" $$1 "\" (packaging/homebrew/tbmesh.rb)" }'

# VERSION is compiled in: every object depends on a stamp holding its value,
# rewritten (when make reads this file) only when the value changes, so that a
# new VERSION rebuilds them instead of leaving programs that print the last.
VERSION_STAMP := $(B)/version.stamp
$(shell mkdir -p '$(B)' && { [ "$$(cat '$(VERSION_STAMP)' 2>/dev/null)" = '$(VERSION)' ] || \
	printf '%s\n' '$(VERSION)' >'$(VERSION_STAMP)'; })
$(patsubst %.c,$(B)/%.o,$(PROTO_SRC) $(wildcard agent/*.c controller/*.c controller/*/*.c \
	tests/unit/*.c tests/bench/*.c)): $(VERSION_STAMP)

clean:
	rm -rf $(B)

distclean:
	rm -rf build build-*

# ---- fuzzing (tests/fuzz/) ------------------------------------------------
#   make fuzz-build      the libFuzzer targets into $(B)/fuzz/ (clang, ASan+UBSan)
#   make fuzz            builds them and runs each for FUZZ_SECONDS (default 60)
# Each tests/fuzz/fuzz_*.c is one target, linked with the parsers it calls:
# proto/*.c, agent/darwin_*.c and controller/engine/wiring*.c compiled again with
# FUZZ_CC and the sanitizers into $(B)/fuzz/obj/ (libfuzzparse.a).  Seeds:
# tests/fuzz/corpus/<target>/ and the fixtures fuzz.sh names; what a run
# finds goes to $(B)/fuzz/corpus/<target>/, crashes to $(B)/fuzz/crash-*.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := $(WARN) -g -O1 $(FUZZ_SANFLAGS)
FUZZ_DIR := $(B)/fuzz
FUZZ_LIB_SRC := $(PROTO_SRC) $(sort $(wildcard agent/darwin_*.c)) \
	$(sort $(wildcard controller/engine/wiring*.c))
FUZZ_LIB_OBJ := $(FUZZ_LIB_SRC:%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(FUZZ_DIR)/%)
FUZZ_LIBS := $(call pkg_libs,libcjson) -lm

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_BIN)

$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(ALL_CPPFLAGS) $(call inc_of,$<) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FUZZ_DIR)/libfuzzparse.a: $(FUZZ_LIB_OBJ)
	rm -f $@ && $(AR) rcs $@ $^

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_DIR)/libfuzzparse.a
	$(FUZZ_CC) $(ALL_CPPFLAGS) $(INC_tests/fuzz) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< \
		$(FUZZ_DIR)/libfuzzparse.a $(FUZZ_LIBS)

fuzz: fuzz-build
	@B=$(B) FUZZ_CC=$(FUZZ_CC) FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_NOBUILD=1 bash tests/integration/fuzz.sh
# ---- end of fuzzing --------------------------------------------------------


-include $(shell find $(B) -name '*.d' 2>/dev/null)
