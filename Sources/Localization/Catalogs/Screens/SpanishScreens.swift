extension Spanish {
    static let screens: [String: String] = [:]
}
