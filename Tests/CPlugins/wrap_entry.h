/*
 * wrap_entry.h — the entry point of every test backend built on ref_backend.c: the file
 * compiles ref_backend.c in with WAI_DEFECT_NO_ENTRY (its entry point renamed
 * wai_backend_entry_v1), defines
 *
 *   static void wrap_table(wai_backend_iface *table)   gives the copy its name and the
 *                                                      entries it replaces
 *
 * and includes this file; wai_backend_entry hands out that copy of the plain-C table.
 * Used by defect_backend.c, model_channels.c and iso_wrap.h (the isolation backends).
 */
static void wrap_table(wai_backend_iface *table);

static wai_backend_iface wrapped_table;

__attribute__((visibility("default")))
wai_status wai_backend_entry(uint32_t host_major, uint32_t host_minor, const wai_backend_iface **out,
                             char *err, size_t err_cap);

wai_status wai_backend_entry(uint32_t host_major, uint32_t host_minor, const wai_backend_iface **out,
                             char *err, size_t err_cap)
{
    const wai_backend_iface *plain = NULL;
    wai_status st = wai_backend_entry_v1(host_major, host_minor, &plain, err, err_cap);
    if (st != WAI_OK || out == NULL)
        return st;
    wrapped_table = *plain;
    wrap_table(&wrapped_table);
    *out = &wrapped_table;
    return WAI_OK;
}
