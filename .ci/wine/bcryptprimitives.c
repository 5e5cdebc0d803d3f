/*
 * bcryptprimitives.dll for Wine releases that lack it (before Wine 9): Rust's standard
 * library imports ProcessPrng from it for its hash keys, so no Rust test program
 * starts without it. The C library itself does not import it.
 *
 * ProcessPrng (documented by Microsoft: fills the buffer with random bytes, always
 * returns TRUE) is served by RtlGenRandom (advapi32's SystemFunction036), which every
 * Wine has. .ci/windows-tests.sh builds this with MinGW-w64 and copies it into its
 * Wine prefix when the prefix has no bcryptprimitives.dll.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG part = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, part)) {
            /* ProcessPrng cannot fail: neither may its stand-in. */
            ExitProcess(0xC0000001); /* STATUS_UNSUCCESSFUL */
        }
        data += part;
        length -= part;
    }
    return TRUE;
}
