/// The channels split out of multi-program streams (docs/ingest.md, "Multi-program TS"): one
/// video channel per program, named from the SDT's service_name (ETSI EN 300 468 §5.2.3) or
/// `<multiplex>-p<program_number>`, while the multiplex is listed as kind `multiplex`. A
/// program keeps its id for as long as its multiplex is listed, even if it leaves the PAT and
/// comes back; ids are reserved in the registry so no announced channel takes one.
struct MultiplexListing: Sendable {
    /// Multiplex id → program_number → the listed program channel.
    private var listed: [String: [UInt16: Channel]] = [:]
    /// Multiplex id → program_number → id given out.
    private var ids: [String: [UInt16: String]] = [:]

    var isEmpty: Bool { listed.isEmpty }

    /// The program channels of multiplex `id`, by program_number.
    func programs(of id: String) -> [UInt16: Channel] { listed[id] ?? [:] }

    /// `channel` as listeners see it: a split multiplex is kind `multiplex` and names its programs.
    func present(_ channel: Channel) -> Channel {
        guard let children = listed[channel.id] else { return channel }
        var shown = channel
        shown.kind = .multiplex
        shown.programChannels = children.keys.sorted().compactMap { children[$0]?.id }
        return shown
    }

    /// Lists multiplex `parent`'s programs as the splitter now sees them: the multiplex first
    /// (it stops being served itself), then programs removed, added or renamed. Returns the
    /// changes and the channel id of each program.
    mutating func relist(_ parent: Channel, programs: [ProgramSplitter.Program],
                         registry: inout ChannelRegistry) -> (changes: [ChannelChange], channels: [UInt16: String]) {
        let before = listed[parent.id]
        var children = before ?? [:]
        var changes: [ChannelChange] = []
        let numbers = Set(programs.map(\.number))
        for number in children.keys.sorted() where !numbers.contains(number) {
            if let gone = children.removeValue(forKey: number) { changes.append(.removed(gone, reason: .ended)) }
        }
        for program in programs {
            let child = channel(for: program, of: parent, registry: &registry)
            if let old = children[program.number] {
                if old != child { changes.append(.updated(child)) }
            } else {
                changes.append(.added(child))
            }
            children[program.number] = child
        }
        listed[parent.id] = children
        if before == nil || before.map({ Set($0.keys) }) != Set(children.keys) { changes.insert(.updated(present(parent)), at: 0) }
        return (changes, children.mapValues(\.id))
    }

    /// Multiplex `id` stopped being split (its receiver went or was replaced): its programs are
    /// removed with `reason`. Their ids stay reserved for a split that follows.
    mutating func close(_ id: String, reason: ChannelChange.RemovalReason) -> [ChannelChange] {
        guard let children = listed.removeValue(forKey: id) else { return [] }
        return children.keys.sorted().compactMap { children[$0] }.map { .removed($0, reason: reason) }
    }

    /// Multiplex `id` is no longer listed: the ids of its programs are free again.
    mutating func forget(_ id: String, registry: inout ChannelRegistry) {
        for child in (ids.removeValue(forKey: id) ?? [:]).values { registry.release(id: child) }
    }

    private mutating func channel(for program: ProgramSplitter.Program, of parent: Channel,
                                  registry: inout ChannelRegistry) -> Channel {
        let id: String
        if let known = ids[parent.id]?[program.number] {
            id = known
        } else {
            id = registry.reserveID(for: program.name ?? "\(parent.id)-p\(program.number)")
            ids[parent.id, default: [:]][program.number] = id
        }
        var child = parent
        child.id = id
        child.name = program.name ?? "\(parent.name) program \(program.number)"
        child.kind = .video
        child.multiplex = parent.id
        child.programNumber = program.number
        child.programs = .whole
        child.programChannels = []
        return child
    }
}
