extension German {
    static let screens: [String: String] = [:]
}
