# WaiHost as a system library. Every target runs a script, so the Makefile holds no logic
# of its own and the scripts stay usable without make.
#   make                              the static release build (scripts/build-release.sh)
#   make install PREFIX=/usr/local    scripts/install.sh (builds first); DESTDIR=STAGE for packagers
#   make deb                          scripts/package-deb.sh: a .deb under .build/deb/
#   make check                        scripts/test.sh
PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: all build install deb check
all: build

build:
	scripts/build-release.sh

install:
	DESTDIR="$(DESTDIR)" scripts/install.sh "$(PREFIX)"

deb:
	scripts/package-deb.sh

check:
	scripts/test.sh
