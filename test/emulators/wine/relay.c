/* Emulator aid, not part of the product. Bun under Wine 8 cannot read a Unix pipe inherited as its stdin (EBADF);
 * a pipe made on the Windows side works. `relay.exe PROGRAM ARGS...` starts PROGRAM with a Windows pipe as its stdin
 * and copies its own stdin into it (closing the pipe at end of input); stdout and stderr are passed through, and the
 * exit status is PROGRAM's. On real Windows an MCP client hands the bridge Windows pipes itself.
 * Build: x86_64-w64-mingw32-gcc -O2 -municode -o relay.exe relay.c */
#include <windows.h>
#include <stdio.h>

static HANDLE source, sink;

static DWORD WINAPI pump(LPVOID unused) {
  static char buf[65536];
  DWORD n, w;
  (void)unused;
  while (ReadFile(source, buf, sizeof buf, &n, NULL) && n > 0) {
    for (DWORD off = 0; off < n; off += w) {
      if (!WriteFile(sink, buf + off, n - off, &w, NULL)) goto done;
    }
  }
done:
  CloseHandle(sink);
  return 0;
}

/* The command line after this program's own name, as Windows quotes it. */
static LPWSTR rest(LPWSTR cl) {
  if (*cl == L'"') {
    for (cl++; *cl && *cl != L'"'; cl++) {}
    if (*cl) cl++;
  } else {
    while (*cl && *cl != L' ' && *cl != L'\t') cl++;
  }
  while (*cl == L' ' || *cl == L'\t') cl++;
  return cl;
}

int wmain(void) {
  LPWSTR command = rest(GetCommandLineW());
  if (!*command) {
    fwprintf(stderr, L"usage: relay.exe PROGRAM [ARGS...]\n");
    return 2;
  }
  SECURITY_ATTRIBUTES sa = {sizeof sa, NULL, TRUE};
  HANDLE childIn;
  if (!CreatePipe(&childIn, &sink, &sa, 0)) return 126;
  SetHandleInformation(sink, HANDLE_FLAG_INHERIT, 0);
  source = GetStdHandle(STD_INPUT_HANDLE);
  STARTUPINFOW si;
  ZeroMemory(&si, sizeof si);
  si.cb = sizeof si;
  si.dwFlags = STARTF_USESTDHANDLES;
  si.hStdInput = childIn;
  si.hStdOutput = GetStdHandle(STD_OUTPUT_HANDLE);
  si.hStdError = GetStdHandle(STD_ERROR_HANDLE);
  PROCESS_INFORMATION pi;
  if (!CreateProcessW(NULL, command, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi)) {
    fwprintf(stderr, L"relay: could not start %ls (error %lu)\n", command, GetLastError());
    return 127;
  }
  CloseHandle(childIn);
  CreateThread(NULL, 0, pump, NULL, 0, NULL);
  WaitForSingleObject(pi.hProcess, INFINITE);
  DWORD code = 1;
  GetExitCodeProcess(pi.hProcess, &code);
  return (int)code;
}
