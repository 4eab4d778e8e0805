/* The mark of libvow.so itself (the product vow, and only it): an image that holds the
   engine, the C entry points and nothing else, so nothing in it calls the engine but
   through the entry points. vow_engine_copies.c reads it (a weak definition there, 0; this
   strong one wins in libvow.so's link): such a copy is dormant when the entry points and
   every Swift import reach another image's copy (ARCHITECTURE.md, "One engine whatever the
   products"). */
__attribute__((visibility("hidden"))) const volatile unsigned char VowLibraryOnly = 1;
