extension French {
    static let core: [String: String] = [:]
}
