/* The C entry points of libvow.so are the functions include/vow.h declares; this target
   (Sources/VowEntryPoints) defines them. Nothing to include from here: C code includes
   vow.h. */
