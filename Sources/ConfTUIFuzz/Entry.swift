import Glibc

/// libFuzzer's driver, from its `fuzzer_no_main` archive. SwiftPM renames an executable target's `main` (it links
/// `main` to `ConfTUIFuzz_main`), so libFuzzer's own `main` cannot be the entry point: ours starts the driver.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

/// `CONFTUI_FUZZ_TARGET=NAME conftui-fuzz [libFuzzer options] [corpus dirs or files]` fuzzes (or, given files,
/// replays) one target; `conftui-fuzz --seed DIR` writes the seed inputs made by the project's own encoders.
@main struct FuzzMain {
    static func main() {
        let arguments = CommandLine.arguments
        if arguments.count == 3, arguments[1] == "--seed" {
            exit(Seeds.write(to: arguments[2]) ? 0 : 1)
        }
        let name = getenv("CONFTUI_FUZZ_TARGET").map { String(cString: $0) } ?? ""
        guard let target = FuzzTargets.named(name) else {
            print("CONFTUI_FUZZ_TARGET must be one of: \(FuzzTargets.names.joined(separator: " "))")
            exit(2)
        }
        FuzzTargets.selected = target
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            let bytes = size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size))
            FuzzTargets.selected?(bytes)
            return 0
        })
    }
}
