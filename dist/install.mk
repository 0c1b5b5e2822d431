# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make install` and `make uninstall`, PREFIX and DESTDIR as usual: the
# programs stripped, a man page per program, the LICENSE and the bash
# completion. Each man page is made by help2man from the program's own
# --help and --version, and dist/man/PROGRAM.h2m for what a --help does not
# hold (NAME, EXIT STATUS, FILES, SEE ALSO): one source for both.
# The service (dist/systemd/): probekit-session.service loads a
# system-wide session, probekit.service writes its profiles; their settings
# in SYSCONFDIR/default/probekit, installed only where none is, and removed
# only as installed.
# `make uninstall` removes exactly what `make install` put there.
.PHONY: install uninstall man

HELP2MAN ?= help2man
STRIP    ?= strip
BINDIR   := $(PREFIX)/bin
MAN1DIR  := $(PREFIX)/share/man/man1
DOCDIR   := $(PREFIX)/share/doc/probekit
COMPLETIONSDIR := $(PREFIX)/share/bash-completion/completions
SYSCONFDIR ?= /etc
UNITDIR  := $(PREFIX)/lib/systemd/system
UNITS    := probekit.service probekit-session.service
DEFAULTS := $(SYSCONFDIR)/default/probekit

PROGRAM_NAMES := $(notdir $(PROGRAMS))
MANPAGES := $(PROGRAM_NAMES:%=$(BUILD)/man/%.1)
# bash-completion loads a program's completion by the program's name: the
# one script, under each.
INSTALLED := $(PROGRAM_NAMES:%=$(BINDIR)/%) $(PROGRAM_NAMES:%=$(MAN1DIR)/%.1) \
	$(DOCDIR)/LICENSE $(PROGRAM_NAMES:%=$(COMPLETIONSDIR)/%) $(UNITS:%=$(UNITDIR)/%)

$(BUILD)/man/%.1: $(BUILD)/% dist/man/%.h2m
	@mkdir -p $(@D)
	$(call msg,MAN,$@)
	$(Q)$(HELP2MAN) --no-info --section=1 --include=dist/man/$*.h2m --output=$@ $<

man: $(MANPAGES)

install: $(PROGRAMS) $(MANPAGES)
	$(Q)install -d $(addprefix $(DESTDIR),$(BINDIR) $(MAN1DIR) $(DOCDIR) $(COMPLETIONSDIR))
	$(Q)install -m 0755 -s --strip-program=$(STRIP) $(PROGRAMS) $(DESTDIR)$(BINDIR)/
	$(Q)install -m 0644 $(MANPAGES) $(DESTDIR)$(MAN1DIR)/
	$(Q)install -m 0644 LICENSE $(DESTDIR)$(DOCDIR)/
	$(Q)for p in $(PROGRAM_NAMES); do \
		install -m 0644 dist/bash-completion/probekit $(DESTDIR)$(COMPLETIONSDIR)/$$p || exit; \
	done
	$(Q)install -d $(DESTDIR)$(UNITDIR) $(DESTDIR)$(dir $(DEFAULTS))
	$(Q)for u in $(UNITS); do \
		sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
			dist/systemd/$$u > $(DESTDIR)$(UNITDIR)/$$u && \
		chmod 0644 $(DESTDIR)$(UNITDIR)/$$u || exit; \
	done
	$(Q)[ -e $(DESTDIR)$(DEFAULTS) ] || \
		install -m 0644 dist/systemd/probekit.default $(DESTDIR)$(DEFAULTS)

# The directories stay, as automake's uninstall leaves them, but
# probekit's own under share/doc.
uninstall:
	$(Q)rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	$(Q)if cmp -s dist/systemd/probekit.default $(DESTDIR)$(DEFAULTS); then \
		rm -f $(DESTDIR)$(DEFAULTS); fi
	$(Q)if [ -d $(DESTDIR)$(DOCDIR) ]; then rmdir $(DESTDIR)$(DOCDIR); fi
