/// SMPTE 2022-1 sender side (`grandstand send`): XORs media RTP packets into column FEC (one per
/// column of each L×D matrix, for port + 2) and row FEC (one per row of L packets, for port + 4).
/// Row FEC leaves right after its row; a matrix's column FEC is spread over the next matrix, one
/// packet every D media packets (like FFmpeg's prompeg), so a burst does not take a column and
/// its FEC together. `flush()` sends what is still queued. Input sequence numbers must be
/// consecutive; a gap or SSRC change starts a new matrix.
public struct SMPTE2022Encoder: Sendable {
    public struct Configuration: Sendable, Equatable {
        public var columns: Int
        public var rows: Int
        public var rowFEC: Bool
        public var payloadType: UInt8
        public var firstColumnSequence: UInt16
        public var firstRowSequence: UInt16

        /// L in 1...255 and D in 1...255 (SMPTE 2022-1 itself allows L·D ≤ 100, L ≤ 20, D ≥ 4).
        public init(columns: Int, rows: Int, rowFEC: Bool = true, payloadType: UInt8 = 96,
                    firstColumnSequence: UInt16 = 0, firstRowSequence: UInt16 = 0) {
            self.columns = columns
            self.rows = rows
            self.rowFEC = rowFEC
            self.payloadType = payloadType
            self.firstColumnSequence = firstColumnSequence
            self.firstRowSequence = firstRowSequence
        }
    }

    /// FEC packets to send, by flow.
    public struct Output: Sendable, Equatable {
        public var column: [[UInt8]] = []
        public var row: [[UInt8]] = []
        public var isEmpty: Bool { column.isEmpty && row.isEmpty }
    }

    /// The running XOR of one group.
    struct Accumulator: Sendable {
        var base: UInt16 = 0
        var count = 0
        var bits: UInt8 = 0
        var marker = false
        var payloadType: UInt8 = 0
        var timestamp: UInt32 = 0
        var length: UInt16 = 0
        var payload: [UInt8] = []

        mutating func add(_ packet: [UInt8], fields: RTPFields) {
            if count == 0 { base = fields.sequence }
            count += 1
            bits ^= fields.first & 0x3F
            marker = marker != fields.marker
            payloadType ^= fields.payloadType
            timestamp ^= fields.timestamp
            let size = packet.count - 12
            length ^= UInt16(truncatingIfNeeded: size)
            if payload.count < size { payload.append(contentsOf: repeatElement(0, count: size - payload.count)) }
            XORBytes.accumulate(into: &payload, from: packet, offset: 12, count: size)
        }

        func packet(sequence: UInt16, isRow: Bool, offset: Int, count: Int) -> SMPTE2022FECPacket {
            SMPTE2022FECPacket(sequenceNumber: sequence, headerBitsRecovery: bits, markerRecovery: marker, snBase: base,
                               lengthRecovery: length, payloadTypeRecovery: payloadType, timestampRecovery: timestamp,
                               isRow: isRow, offset: UInt8(truncatingIfNeeded: offset), count: UInt8(truncatingIfNeeded: count),
                               payload: payload[...])
        }
    }

    public let configuration: Configuration
    private var position = 0
    private var expected: UInt16? = nil
    private var ssrc: UInt32? = nil
    private var lastTimestamp: UInt32 = 0
    private var row = Accumulator()
    private var columnGroups: [Accumulator]
    private var queuedColumns: [SMPTE2022FECPacket] = []
    private var columnSequence: UInt16
    private var rowSequence: UInt16
    /// Matrices completed (`protection_windows`) and FEC packets emitted (`repairPackets`).
    public private(set) var stats = FECStats()

    public init(configuration: Configuration) {
        self.configuration = configuration
        columnGroups = Array(repeating: Accumulator(), count: max(1, configuration.columns))
        columnSequence = configuration.firstColumnSequence
        rowSequence = configuration.firstRowSequence
    }

    /// Adds one media RTP packet as it is sent; returns the FEC packets to send after it.
    public mutating func add(_ packet: [UInt8]) -> Output {
        var out = Output()
        guard let fields = RTPFields(packet[...]), configuration.columns >= 1, configuration.rows >= 1,
              configuration.columns <= 255, configuration.rows <= 255 else { return out }
        if (expected != nil && expected != fields.sequence) || (ssrc != nil && ssrc != fields.ssrc) {
            out.column += drainColumns()
            restartMatrix()
        }
        expected = fields.sequence &+ 1
        ssrc = fields.ssrc
        lastTimestamp = fields.timestamp
        let l = configuration.columns, d = configuration.rows
        let column = position % l
        // The previous matrix's column FEC, one every D packets of this one.
        if position % d == 0, !queuedColumns.isEmpty {
            out.column.append(emit(queuedColumns.removeFirst()))
        }
        if configuration.rowFEC {
            row.add(packet, fields: fields)
            if row.count == l {
                out.row.append(emitRow(row.packet(sequence: rowSequence, isRow: true, offset: 1, count: l)))
                row = Accumulator()
            }
        }
        columnGroups[column].add(packet, fields: fields)
        position += 1
        if position == l * d {
            out.column += drainColumns()
            queuedColumns = columnGroups.map { $0.packet(sequence: 0, isRow: false, offset: l, count: d) }
            columnGroups = Array(repeating: Accumulator(), count: l)
            position = 0
            stats.protectionWindows += 1
        }
        return out
    }

    /// Sends the column FEC still queued (end of stream). A partial matrix is not protected.
    public mutating func flush() -> Output {
        var out = Output()
        out.column = drainColumns()
        return out
    }

    private mutating func drainColumns() -> [[UInt8]] {
        defer { queuedColumns = [] }
        return queuedColumns.map { emit($0) }
    }

    private mutating func restartMatrix() {
        position = 0
        row = Accumulator()
        columnGroups = Array(repeating: Accumulator(), count: max(1, configuration.columns))
    }

    private mutating func emit(_ fec: SMPTE2022FECPacket) -> [UInt8] {
        var fec = fec
        fec.sequenceNumber = columnSequence
        columnSequence &+= 1
        stats.repairPackets += 1
        return fec.serialized(payloadType: configuration.payloadType, timestamp: lastTimestamp)
    }

    private mutating func emitRow(_ fec: SMPTE2022FECPacket) -> [UInt8] {
        var fec = fec
        fec.sequenceNumber = rowSequence
        rowSequence &+= 1
        stats.repairPackets += 1
        return fec.serialized(payloadType: configuration.payloadType, timestamp: lastTimestamp)
    }
}
