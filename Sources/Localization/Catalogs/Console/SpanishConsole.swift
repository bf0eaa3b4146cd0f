extension Spanish {
    static let console: [String: String] = [:]
}
