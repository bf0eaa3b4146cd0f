extension French {
    static let console: [String: String] = [:]
}
