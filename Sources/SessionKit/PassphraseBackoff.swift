/// The one rule for the wait after wrong proctor passphrases, wherever one is asked (the
/// start screen, ending a session early, `resume`, `unlock`) and whoever keeps the count
/// (the session state, or the attempts file that holds across processes): 1 s after the
/// first wrong passphrase, then twice as long after each, up to 15 minutes.
public enum PassphraseBackoff {
    /// The longest wait, whatever the count.
    public static let maximumDelay = 900.0

    /// Seconds to wait after `failures` wrong passphrases in a row (0 after none).
    public static func delay(afterFailures failures: Int) -> Double {
        guard failures > 0 else { return 0 }
        // 2^(n-1), with the exponent capped well before the maximum so nothing overflows.
        return min(Double(1 << min(failures - 1, 20)), maximumDelay)
    }
}
