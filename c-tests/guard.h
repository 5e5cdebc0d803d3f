/*
 * guard.h: memory between two pages that cannot be read or written, for the over-read
 * tests (check.c, guard_pages.c); header only. POSIX systems get it from mmap and
 * mprotect(PROT_NONE), Windows from VirtualAlloc and VirtualProtect(PAGE_NOACCESS).
 *
 *   guard_page_size()        the size of a page
 *   guard_alloc(size)        [no-access page][size bytes, readable and writable]
 *                            [no-access page]: returns the first readable byte
 *   guard_read_faults(p)     1 if reading the byte at p faults, 0 if it does not (the
 *                            read is made in a child process on POSIX systems, in a
 *                            thread whose fault ends only that thread on Windows)
 *   guard_report_faults(f)   from then on a memory fault calls f, which may only call
 *                            guard_write_stderr, and ends the process abnormally (POSIX:
 *                            death by the signal; Windows: exit status 0xC0000005)
 *   guard_write_stderr(s)    writes the string s to stderr (no buffering, no locks)
 *
 * On POSIX systems it needs _DEFAULT_SOURCE (MAP_ANONYMOUS, sigaction, fork), defined
 * by the including file before its first #include.
 */
#ifndef C_TESTS_GUARD_H
#define C_TESTS_GUARD_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <windows.h>
#else
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

typedef void (*guard_fault_report)(void);

static inline void guard_write_stderr(const char *s)
{
#ifdef _WIN32
    DWORD written;
    WriteFile(GetStdHandle(STD_ERROR_HANDLE), s, (DWORD)strlen(s), &written, NULL);
#else
    ssize_t ignored = write(2, s, strlen(s));
    (void)ignored;
#endif
}

static inline size_t guard_page_size(void)
{
#ifdef _WIN32
    SYSTEM_INFO info;
    GetSystemInfo(&info);
    return (size_t)info.dwPageSize;
#else
    return (size_t)sysconf(_SC_PAGESIZE);
#endif
}

/* size: a multiple of guard_page_size(). Exits with status 2 when the memory cannot be
 * had or protected. */
static inline unsigned char *guard_alloc(size_t size)
{
    size_t page = guard_page_size();
    unsigned char *m;
#ifdef _WIN32
    DWORD old;
    m = (unsigned char *)VirtualAlloc(NULL, size + 2 * page, MEM_RESERVE | MEM_COMMIT,
                                      PAGE_READWRITE);
    if (m == NULL || !VirtualProtect(m, page, PAGE_NOACCESS, &old) ||
        !VirtualProtect(m + page + size, page, PAGE_NOACCESS, &old)) {
        fprintf(stderr, "c-tests: VirtualAlloc/VirtualProtect failed (error %lu)\n",
                (unsigned long)GetLastError());
        exit(2);
    }
#else
    m = (unsigned char *)mmap(NULL, size + 2 * page, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED || mprotect(m, page, PROT_NONE) != 0 ||
        mprotect(m + page + size, page, PROT_NONE) != 0) {
        perror("c-tests: mmap/mprotect");
        exit(2);
    }
#endif
    return m + page;
}

#ifdef _WIN32

static DWORD guard_probe_thread;

/* Ends the probing thread at its fault, with the fault's code as its exit code. */
static LONG CALLBACK guard_probe_handler(EXCEPTION_POINTERS *e)
{
    if (e->ExceptionRecord->ExceptionCode == EXCEPTION_ACCESS_VIOLATION &&
        GetCurrentThreadId() == guard_probe_thread) {
        ExitThread(EXCEPTION_ACCESS_VIOLATION);
    }
    return EXCEPTION_CONTINUE_SEARCH;
}

static DWORD WINAPI guard_probe_read(LPVOID p)
{
    volatile unsigned char sink = *(volatile const unsigned char *)p;
    (void)sink;
    return 0; /* reached only if the byte is readable */
}

static inline int guard_read_faults(const void *p)
{
    DWORD code = 0;
    HANDLE thread;
    PVOID handler = AddVectoredExceptionHandler(1, guard_probe_handler);
    /* Suspended, so that its id is known before it runs. */
    thread = CreateThread(NULL, 0, guard_probe_read, (LPVOID)(size_t)p, CREATE_SUSPENDED,
                          &guard_probe_thread);
    if (handler == NULL || thread == NULL || ResumeThread(thread) == (DWORD)-1 ||
        WaitForSingleObject(thread, INFINITE) != WAIT_OBJECT_0 ||
        !GetExitCodeThread(thread, &code)) {
        fprintf(stderr, "c-tests: the probing thread failed (error %lu)\n",
                (unsigned long)GetLastError());
        exit(2);
    }
    CloseHandle(thread);
    RemoveVectoredExceptionHandler(handler);
    return code == EXCEPTION_ACCESS_VIOLATION;
}

static guard_fault_report guard_report;

static LONG WINAPI guard_on_fault(EXCEPTION_POINTERS *e)
{
    if (e->ExceptionRecord->ExceptionCode == EXCEPTION_ACCESS_VIOLATION) {
        guard_report();
    }
    /* Ends the process with the exception code, without a debugger. */
    return EXCEPTION_EXECUTE_HANDLER;
}

static inline void guard_report_faults(guard_fault_report report)
{
    guard_report = report;
    SetUnhandledExceptionFilter(guard_on_fault);
}

#else /* POSIX */

static inline int guard_read_faults(const void *p)
{
    int status = 0;
    pid_t pid;
    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        perror("c-tests: fork");
        exit(2);
    }
    if (pid == 0) {
        volatile unsigned char sink;
        signal(SIGSEGV, SIG_DFL);
        signal(SIGBUS, SIG_DFL);
        sink = *(volatile const unsigned char *)p;
        (void)sink;
        _exit(0); /* reached only if the byte is readable */
    }
    if (waitpid(pid, &status, 0) != pid) {
        perror("c-tests: waitpid");
        exit(2);
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        return 0;
    }
    return WIFSIGNALED(status) && (WTERMSIG(status) == SIGSEGV || WTERMSIG(status) == SIGBUS);
}

static guard_fault_report guard_report;

static void guard_on_fault(int sig)
{
    guard_report();
    signal(sig, SIG_DFL);
    raise(sig);
}

static inline void guard_report_faults(guard_fault_report report)
{
    struct sigaction sa;
    guard_report = report;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = guard_on_fault;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
}

#endif

#endif /* C_TESTS_GUARD_H */
