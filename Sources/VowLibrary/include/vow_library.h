/* Nothing to include: see library_mark.c. */
