#if canImport(Glibc)
import Glibc
#endif

/// Every subcommand, in the order `conftui --help` lists them.
let allCommands: [Command] = [
    joinCommand,
    serveCommand,
    demoCommand,
    previewCommand,
    botCommand,
]

@main
enum ConfTUIMain {
    static func main() {
        var args = Array(CommandLine.arguments.dropFirst())
        guard let first = args.first else {
            print(overview)
            exit(0)
        }
        if first == "--help" || first == "-h" || first == "help" {
            if args.count > 1, let command = allCommands.first(where: { $0.name == args[1] }) {
                print(command.usage)
            } else {
                print(overview)
            }
            exit(0)
        }
        if first == "--version" {
            print("conftui \(conftuiVersion)")
            exit(0)
        }
        guard let command = allCommands.first(where: { $0.name == first }) else {
            fail("unknown command '\(first)'\n\n\(overview)")
        }
        args.removeFirst()
        if args.contains("--help") || args.contains("-h") {
            print(command.usage)
            exit(0)
        }
        do {
            let parsed = try ParsedArguments.parse(args, specs: command.options)
            exit(try command.run(parsed))
        } catch let error as UsageError {
            fail("\(error.description)\n\n\(command.usage)")
        } catch {
            fail("\(error)")
        }
    }

    static var overview: String {
        var text = """
        conftui \(conftuiVersion): a terminal-native, multi-party WebRTC video conference room

        usage: conftui <command> [options]    (conftui <command> --help for its options)

        commands:

        """
        var width = 0
        for command in allCommands { width = max(width, command.name.count + 2) }
        for command in allCommands {
            text += "  " + command.name + String(repeating: " ", count: width - command.name.count) + command.summary + "\n"
        }
        return text
    }

    static func fail(_ message: String) -> Never {
        let text = "conftui: \(message)\n"
        _ = text.withCString { write(2, $0, strlen($0)) }
        exit(2)
    }
}

let conftuiVersion = "0.1.0"
