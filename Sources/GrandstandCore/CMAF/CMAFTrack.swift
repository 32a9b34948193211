/// The codec of one CMAF track and what its sample entry is built from.
public enum CMAFCodec: Sendable, Equatable {
    case avc(AVCConfiguration)
    case hevc(HEVCConfiguration)
    case aac(AACConfiguration)

    /// RFC 6381 `codecs` value (for HLS CODECS and DASH @codecs).
    public var codecString: String {
        switch self {
        case .avc(let c): c.codecString
        case .hevc(let c): c.codecString
        case .aac(let c): c.codecString
        }
    }

    public var isVideo: Bool {
        if case .aac = self { return false }
        return true
    }
}

/// One track of a CMAF presentation: its id in `tkhd`/`tfhd`, codec and media timescale
/// (90 kHz for video, the sampling rate for audio so every AAC frame lasts exactly 1024).
public struct CMAFTrack: Sendable, Equatable {
    public var id: UInt32
    public var codec: CMAFCodec
    public var timescale: UInt32

    public init(id: UInt32, codec: CMAFCodec) {
        self.id = id
        self.codec = codec
        if case .aac(let c) = codec { timescale = UInt32(c.sampleRate) } else { timescale = UInt32(MediaClock.ticksPerSecond) }
    }

    public var size: (width: Int, height: Int)? {
        switch codec {
        case .avc(let c): (c.width, c.height)
        case .hevc(let c): (c.width, c.height)
        case .aac: nil
        }
    }
}

/// Sample flags of `trun` / `trex` (ISO/IEC 14496-12 §8.8.3.1).
public enum SampleFlags {
    /// A sync sample: depends on no other (sample_depends_on = 2).
    public static let sync: UInt32 = 0x0200_0000
    /// A non-sync sample: depends on others (sample_depends_on = 1, sample_is_non_sync_sample).
    public static let nonSync: UInt32 = 0x0101_0000
}

/// One sample of a track run: the `trun` fields we write for every sample.
public struct FragmentSample: Sendable, Equatable {
    public var duration: UInt32
    public var size: UInt32
    public var flags: UInt32
    /// PTS − DTS in the track's timescale (signed: `trun` version 1).
    public var compositionOffset: Int32

    public init(duration: UInt32, size: UInt32, flags: UInt32, compositionOffset: Int32 = 0) {
        self.duration = duration
        self.size = size
        self.flags = flags
        self.compositionOffset = compositionOffset
    }
}

/// One track's samples in a fragment: its decode time and its media bytes, in sample order.
public struct TrackRun: Sendable, Equatable {
    public var trackID: UInt32
    /// `tfdt` baseMediaDecodeTime of the first sample, in the track's timescale.
    public var baseDecodeTime: UInt64
    public var samples: [FragmentSample]
    public var data: [UInt8]

    public init(trackID: UInt32, baseDecodeTime: UInt64, samples: [FragmentSample] = [], data: [UInt8] = []) {
        self.trackID = trackID
        self.baseDecodeTime = baseDecodeTime
        self.samples = samples
        self.data = data
    }
}
