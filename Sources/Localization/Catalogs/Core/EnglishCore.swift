extension English {
    /// Times, lists, the session's statuses, the test's keys.
    static let core: [String] = [
        "{0, plural, one {# hour} other {# hours}}",
        "{0, plural, one {# minute} other {# minutes}}",
        "{0, plural, one {# second} other {# seconds}}",
        "⟨between units of time⟩ ",
        "⟨list separator⟩, ",
        "{0} and {1}",
    ]
}
