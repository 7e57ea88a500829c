#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Puts the terminal back the way it was on every exit path: a normal quit, Ctrl-C, SIGTERM,
/// SIGHUP (the SSH link dropped), a thrown error, and a crash signal.
///
/// Normal paths call `restore()` (curses' endwin plus the saved termios). Signals that ask us to
/// stop only set `stopRequested`: the UI loop notices within one tick and leaves through the
/// normal path. Crash signals cannot run curses safely, so their handler does only
/// async-signal-safe work (POSIX.1-2017 §2.4.3: tcsetattr and write are on the list): restore the
/// saved termios, write the escape sequences that undo what we switched on, then re-raise the
/// signal with its default action so the exit status and core dump are what they would have been.
enum TerminalGuard {
    /// Set by SIGINT/SIGTERM/SIGHUP; read by the UI loop.
    static let stopRequested = Atomic<Int32>(0)

    /// The terminal modes before we touched them. Written once in `install()` before any handler
    /// that reads it is installed, and never written again, so the signal handler's read cannot race.
    nonisolated(unsafe) private static var savedModes = termios()
    nonisolated(unsafe) private static var haveSavedModes = false

    /// End synchronized output, reset colours, show the cursor, leave the alternate screen.
    private static let resetSequence: StaticString = "\u{1b}[?2026l\u{1b}[0m\u{1b}[?25h\u{1b}[?1049l\r\n"

    /// Saves the terminal's modes and installs the handlers. Call before initscr().
    static func install() {
        if tcgetattr(0, &savedModes) == 0 { haveSavedModes = true }
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig) { sig in TerminalGuard.stopRequested.store(sig, ordering: .relaxed) }
        }
        for sig in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP] {
            signal(sig) { sig in
                TerminalGuard.restoreFromSignal()
                signal(sig, SIG_DFL)
                raise(sig)
            }
        }
        // A write to a closed SSH pty must not kill us before we can restore anything.
        signal(SIGPIPE, SIG_IGN)
    }

    /// Async-signal-safe restore (no allocation, no locks, no curses).
    static func restoreFromSignal() {
        if haveSavedModes { _ = tcsetattr(0, TCSANOW, &savedModes) }
        resetSequence.withUTF8Buffer { buf in _ = write(1, buf.baseAddress, buf.count) }
    }

    /// The normal-path restore of the saved modes, after endwin().
    static func restoreModes() {
        if haveSavedModes { _ = tcsetattr(0, TCSANOW, &savedModes) }
    }
}
