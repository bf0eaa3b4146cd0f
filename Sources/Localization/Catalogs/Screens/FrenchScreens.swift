extension French {
    static let screens: [String: String] = [:]
}
