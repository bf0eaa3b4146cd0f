extension Spanish {
    static let widgets: [String: String] = [:]
}
