extension German {
    static let console: [String: String] = [:]
}
