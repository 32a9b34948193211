/// One AAC frame in ADTS framing (ISO/IEC 13818-7 §6.2, as MPEG-TS stream_type 0x0F carries
/// it): the raw_data_block and what the header says about it.
public struct ADTSFrame: Sendable, Equatable {
    public var configuration: AACConfiguration
    /// The raw AAC frame: one MP4 sample of 1024 audio samples.
    public var payload: ArraySlice<UInt8>

    public enum ParseError: Error, Sendable, Equatable {
        case noSyncWord, truncated, badLength, multipleRawDataBlocks, reservedSamplingFrequency
    }

    /// The frames of a PES payload, in order; stops at the first bad frame (its bytes and what
    /// follows are dropped: `error` says why).
    public static func frames(_ bytes: ArraySlice<UInt8>) -> (frames: [ADTSFrame], error: ParseError?) {
        var frames: [ADTSFrame] = []
        var rest = bytes
        while !rest.isEmpty {
            switch parse(rest) {
            case .success(let (frame, length)):
                frames.append(frame)
                rest = rest.dropFirst(length)
            case .failure(let error):
                return (frames, error)
            }
        }
        return (frames, nil)
    }

    /// The configuration an ADTS header at the start of `bytes` announces (the frame itself may
    /// be incomplete).
    public static func configuration(header bytes: ArraySlice<UInt8>) -> AACConfiguration? {
        guard bytes.count >= 4, bytes.octet(at: 0) == 0xFF, let b1 = bytes.octet(at: 1), b1 & 0xF6 == 0xF0,
              let b2 = bytes.octet(at: 2), let b3 = bytes.octet(at: 3), b2 >> 2 & 0x0F < 13 else { return nil }
        return AACConfiguration(objectType: (b2 >> 6) + 1, frequencyIndex: b2 >> 2 & 0x0F, channelConfiguration: (b2 & 1) << 2 | b3 >> 6)
    }

    /// The frame at the start of `bytes` and its whole length.
    static func parse(_ bytes: ArraySlice<UInt8>) -> Result<(ADTSFrame, Int), ParseError> {
        guard bytes.count >= 7, let b1 = bytes.octet(at: 1), let b2 = bytes.octet(at: 2), let b3 = bytes.octet(at: 3),
              let b4 = bytes.octet(at: 4), let b5 = bytes.octet(at: 5), let b6 = bytes.octet(at: 6) else { return .failure(.truncated) }
        guard bytes.octet(at: 0) == 0xFF, b1 & 0xF6 == 0xF0 else { return .failure(.noSyncWord) }
        let protectionAbsent = b1 & 1 == 1
        let objectType = (b2 >> 6) + 1
        let frequencyIndex = b2 >> 2 & 0x0F
        guard frequencyIndex < 13 else { return .failure(.reservedSamplingFrequency) }
        let channels = (b2 & 1) << 2 | b3 >> 6
        let length = Int(b3 & 0x03) << 11 | Int(b4) << 3 | Int(b5 >> 5)
        guard b6 & 0x03 == 0 else { return .failure(.multipleRawDataBlocks) }
        let header = protectionAbsent ? 7 : 9
        guard length > header else { return .failure(.badLength) }
        guard length <= bytes.count else { return .failure(.truncated) }
        let configuration = AACConfiguration(objectType: objectType, frequencyIndex: frequencyIndex, channelConfiguration: channels)
        return .success((ADTSFrame(configuration: configuration, payload: bytes.dropFirst(header).prefix(length - header)), length))
    }
}

/// An AAC stream's AudioSpecificConfig (ISO/IEC 14496-3 §1.6.2.1) and the `esds` descriptors
/// that carry it (ISO/IEC 14496-1 §7.2.6.5, 14496-14 §5.6).
public struct AACConfiguration: Sendable, Equatable {
    /// audioObjectType (2 = AAC LC).
    public var objectType: UInt8
    public var frequencyIndex: UInt8
    /// channelConfiguration (0: defined in the stream's program_config_element).
    public var channelConfiguration: UInt8

    static let sampleRates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]

    public var sampleRate: Int { Self.sampleRates[Int(frequencyIndex)] }
    /// Channel count for the sample entry (configuration 7 is 7.1, i.e. 8; 0 leaves it to the
    /// stream, where 2 is the conventional value).
    public var channelCount: Int {
        switch channelConfiguration {
        case 0: 2
        case 7: 8
        default: Int(channelConfiguration)
        }
    }

    /// RFC 6381 `codecs` value, e.g. `mp4a.40.2`.
    public var codecString: String { "mp4a.40.\(objectType)" }

    /// AudioSpecificConfig: object type, sampling frequency index, channel configuration, and
    /// GASpecificConfig with no flags.
    public var audioSpecificConfig: [UInt8] {
        [objectType << 3 | frequencyIndex >> 1, (frequencyIndex & 1) << 7 | channelConfiguration << 3]
    }

    /// The `esds` box body: ES_Descriptor ⊃ DecoderConfigDescriptor (MPEG-4 audio, 0x40) ⊃
    /// DecoderSpecificInfo, and an SLConfigDescriptor (predefined 2, as MP4 requires).
    func writeESDS(_ w: inout ISOBoxWriter, averageBitRate: UInt32) {
        let asc = audioSpecificConfig
        w.fullBox("esds", version: 0, flags: 0) { w in
            let decoderSpecific = 2 + asc.count
            let decoderConfig = 13 + decoderSpecific
            w.u8(0x03); w.u8(UInt8(3 + 2 + decoderConfig + 3)); w.u16(0); w.u8(0)
            w.u8(0x04); w.u8(UInt8(decoderConfig))
            w.u8(0x40); w.u8(0x15); w.u24(0); w.u32(averageBitRate); w.u32(averageBitRate)
            w.u8(0x05); w.u8(UInt8(asc.count)); w.append(asc)
            w.u8(0x06); w.u8(1); w.u8(0x02)
        }
    }
}
