import ArgumentParser

@main
struct Grandstand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "grandstand", abstract: "Venue gateway.")
    func run() throws {}
}
