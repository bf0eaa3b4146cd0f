/// The sysexits codes every command exits with, defined once: the README and the man page
/// promise them to scripts, and the session, the terminal front end and the commands all
/// take their numbers from here.
public enum ExitStatus: Int32, Sendable {
    case ok = 0
    /// EX_USAGE: a command used wrongly (an option, an argument, a session to name).
    case usage = 64
    /// EX_DATAERR: an assessment, a package, a roster or a store row that is not valid.
    case invalidAssessment = 65
    /// EX_NOINPUT: a file or store that cannot be opened.
    case cannotOpenInput = 66
    /// EX_UNAVAILABLE: refused by the policy or the environment.
    case refused = 69
    /// EX_SOFTWARE: something Carrel did not expect of itself.
    case internalError = 70
    /// EX_CANTCREAT: state that cannot be created or written.
    case cannotCreate = 73
    /// EX_TEMPFAIL: a lock is active, or an interrupted session awaits the proctor.
    case lockActive = 75
    /// EX_NOPERM: a wrong proctor passphrase.
    case wrongPassphrase = 77
}
