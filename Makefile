# Builds savevault and installs it with its manual page and shell completions.
#   make install PREFIX=/usr/local   (the default; DESTDIR is honoured for packaging)
#   make uninstall PREFIX=/usr/local
# SAVEVAULT names an already built binary to install instead of building a release one.
#   make dist                        (the release bundle: dist/savevault-<version>-linux-<arch>.tar.gz)
PREFIX ?= /usr/local
SWIFT ?= swift
SAVEVAULT ?= .build/release/savevault

BINDIR = $(DESTDIR)$(PREFIX)/bin
MANDIR = $(DESTDIR)$(PREFIX)/share/man/man1
BASHDIR = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHDIR = $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISHDIR = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d

.PHONY: all build install uninstall dist FORCE

all: build

build: .build/release/savevault

.build/release/savevault: FORCE
	$(SWIFT) build -c release --static-swift-stdlib --product savevault

install: $(SAVEVAULT)
	install -d "$(BINDIR)" "$(MANDIR)" "$(BASHDIR)" "$(ZSHDIR)" "$(FISHDIR)"
	install -m 755 "$(SAVEVAULT)" "$(BINDIR)/savevault"
	"$(SAVEVAULT)" manpage > "$(MANDIR)/savevault.1"
	"$(SAVEVAULT)" completions bash > "$(BASHDIR)/savevault"
	"$(SAVEVAULT)" completions zsh > "$(ZSHDIR)/_savevault"
	"$(SAVEVAULT)" completions fish > "$(FISHDIR)/savevault.fish"
	chmod 644 "$(MANDIR)/savevault.1" "$(BASHDIR)/savevault" "$(ZSHDIR)/_savevault" "$(FISHDIR)/savevault.fish"

uninstall:
	rm -f "$(BINDIR)/savevault" "$(MANDIR)/savevault.1" "$(BASHDIR)/savevault" \
		"$(ZSHDIR)/_savevault" "$(FISHDIR)/savevault.fish"

dist:
	bash release/dist.sh

FORCE:
