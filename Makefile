# Vow: the two commands of the README, and a few more.
#   make demo       C and Swift share one promise chain (the main example)
#   make test       every test: Swift (+ ThreadSanitizer), the docs, C (+ valgrind), libuv/GLib, fuzz, examples,
#                   install, the Debian packages, the ABI gate
#   make install PREFIX=/usr/local [LIBDIR=...] [DESTDIR=...]
#                   vow.h, vow.hpp, vow_testing.h; libvow.so.VERSION (SONAME libvow.so.0) with the
#                   links libvow.so.0 and libvow.so, and the Swift runtime it needs beside it
#                   (LIBDIR/vow/runtime-0); pkg-config files (vow, vow-uv, vow-glib, vow-swift); the
#                   CMake package (LIBDIR/cmake/Vow); the libuv and GLib bridges (vow_uv.h,
#                   libvow-uv.a; vow_glib.h, libvow-glib.a); the Swift modules for Swift code on the
#                   same libvow.so (LIBDIR/vow/swift); valgrind suppressions (LIBDIR/vow-valgrind.supp)
#   make deb        dist/libvow0_VERSION_ARCH.deb and dist/libvow-dev_VERSION_ARCH.deb (Debian 12)
#   make docs       the documentation, checked (0 warnings): a DocC archive per Swift module and the
#                   reference of the C and C++ headers (Doxygen), as one static site in
#                   .build-docs/site (index.html; README.md, "Documentation")
#   make bench      benchmarks (Benchmarks/, a separate package)
#   make soak SECONDS=600
PREFIX ?= /usr/local
SECONDS ?= 600

.PHONY: demo test install deb docs bench soak deps

deps:
	scripts/install-deps.sh

demo: deps
	Examples/run-examples.sh --demo

test: deps
	scripts/test.sh

install: deps
	LIBDIR="$(LIBDIR)" DESTDIR="$(DESTDIR)" scripts/install.sh "$(PREFIX)"

deb: deps
	scripts/deb.sh

docs: deps
	scripts/docs.sh

bench: deps
	# drop the cached build plan: SwiftPM misses files added to the library (a path dependency)
	rm -f Benchmarks/.build/release.yaml
	cd Benchmarks && swift package --allow-writing-to-package-directory benchmark

soak: deps
	scripts/soak.sh $(SECONDS)
