/* Included by kw_main.c: C names that are C++ keywords, as Rodinia
 * heartwall's kernel.c has them. */
static int scale(int public, int private) { return public * private; }
