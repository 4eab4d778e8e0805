# Vow: the two commands of the README, and a few more.
#   make demo       C and Swift share one promise chain (the main example)
#   make test       every test: Swift (+ ThreadSanitizer), C (+ valgrind), libuv/GLib, fuzz, examples, install
#   make install PREFIX=/usr/local   vow.h, libvow.so and vow.pc for C programs, and the libuv and
#                   GLib bridges (vow_uv.h, libvow-uv.a, vow-uv.pc; vow_glib.h, libvow-glib.a, vow-glib.pc);
#                   the Swift modules for Swift code on the same libvow.so (lib/vow/swift, vow-swift.pc)
#                   and valgrind suppressions (lib/vow-valgrind.supp)
#   make bench      benchmarks (Benchmarks/, a separate package)
#   make soak SECONDS=600
PREFIX ?= /usr/local
SECONDS ?= 600

.PHONY: demo test install bench soak deps

deps:
	scripts/install-deps.sh

demo: deps
	Examples/run-examples.sh --demo

test: deps
	scripts/test.sh

install: deps
	scripts/install.sh "$(PREFIX)"

bench: deps
	# drop the cached build plan: SwiftPM misses files added to the library (a path dependency)
	rm -f Benchmarks/.build/release.yaml
	cd Benchmarks && swift package --allow-writing-to-package-directory benchmark

soak: deps
	scripts/soak.sh $(SECONDS)
