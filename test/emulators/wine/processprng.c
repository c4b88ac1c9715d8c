/* Emulator aid, not part of the product. Wine 8 has no bcryptprimitives.dll, so no ProcessPrng, which every Bun 1.4
 * Windows executable imports: without it they die at load (a Bun "hello" the same). This stand-in exports ProcessPrng
 * on top of RtlGenRandom and is placed only in the CI's private Wine prefix (C:\windows\system32). Real Windows
 * (8 and later) has the real one. Build: x86_64-w64-mingw32-gcc -shared -O2 -o bcryptprimitives.dll processprng.c */
#include <windows.h>
#include <ntsecapi.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len > 0) {
    ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
    if (!RtlGenRandom(data, n)) return FALSE;
    data += n;
    len -= n;
  }
  return TRUE;
}
