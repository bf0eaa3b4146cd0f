/// The proctor of the tests: one passphrase, its hash and signing key at the lowest cost
/// Carrel accepts (ln=10), so that signing a command costs a test milliseconds. The two
/// lines were made outside Carrel (Python's hashlib.scrypt and the cryptography package's
/// Ed25519), from the derivation docs/security-model.md describes.
public enum TestProctor {
    public static let passphrase = "proctor phrase"
    public static let hash = "scrypt$ln=10,r=8,p=1$PilNsrVlqe1VmRGfsSMQ3A==$TfcMVSKeA9P1fLK3LHCjnNupqPmRdaATMnpz5K8ruiY="
    public static let key = "ed25519:NP6xnGmbUY40MGR7euraxIrLonTV2Dlj+jTG0v/GF4c=$ln=10,r=8,p=1$TwROBByWn5zlmHncA8mXSQ=="
    /// The assessment's `proctor:` line with both.
    public static let yaml = "proctor: {passphrase: \"\(hash)\", key: \"\(key)\"}"
    /// `carrel proctor ACTION …` as the tests run it: the passphrase on standard input.
    public static let actions: Set<String> = ["start", "pause", "resume", "time", "message", "end", "acknowledge", "move", "lost"]

    /// The arguments and standard input for a `carrel` command: a proctor action gets
    /// `--passphrase-stdin` and `passphrase` (the test proctor's unless told) as its input.
    public static func signing(_ arguments: [String], passphrase: String = TestProctor.passphrase) -> (arguments: [String], input: String?) {
        guard arguments.count > 1, arguments[0] == "proctor", actions.contains(arguments[1]) else { return (arguments, nil) }
        // A start sends keys only to seats the proctor checked: the tests have checked them.
        let checked = arguments[1] == "start" && !arguments.contains("--yes") && !arguments.contains("--no-yes")
        return (arguments.filter { $0 != "--no-yes" } + ["--passphrase-stdin"] + (checked ? ["--yes"] : []), passphrase + "\n")
    }

    /// Another passphrase's key: what a forger who is not the proctor signs with.
    public static let otherPassphrase = "not the proctor"
}
