/// A CMAF header (ISO/IEC 23000-19 §7.3.1): `ftyp` and a `moov` with one `trak` per track, no
/// samples (`stts`/`stsc`/`stsz`/`stco` empty) and an `mvex` announcing fragments
/// (ISO/IEC 14496-12 §8.8.1). HLS names it in EXT-X-MAP, DASH as the initialization segment.
public enum InitSegment {
    /// The brands: ISO 6 (`tfdt`, signed `trun` offsets) and CMAF's structural brand.
    static let brands = ["iso6", "cmfc", "mp41"]

    public static func bytes(tracks: [CMAFTrack]) -> [UInt8] {
        var w = ISOBoxWriter(capacity: 1024)
        w.box("ftyp") { w in
            w.fourCC("iso6"); w.u32(0)
            for brand in brands { w.fourCC(brand) }
        }
        w.box("moov") { w in
            w.fullBox("mvhd", version: 0, flags: 0) { w in
                w.u32(0); w.u32(0); w.u32(1000); w.u32(0)   // times, timescale, duration (fragmented: 0)
                w.u32(0x0001_0000); w.u16(0x0100); w.zeros(10)   // rate 1.0, volume 1.0
                w.unityMatrix()
                w.zeros(24)
                w.u32((tracks.map(\.id).max() ?? 0) + 1)
            }
            for track in tracks { writeTrack(&w, track) }
            w.box("mvex") { w in
                for track in tracks {
                    w.fullBox("trex", version: 0, flags: 0) { w in
                        w.u32(track.id); w.u32(1); w.u32(0); w.u32(0); w.u32(0)
                    }
                }
            }
        }
        return w.bytes
    }

    private static func writeTrack(_ w: inout ISOBoxWriter, _ track: CMAFTrack) {
        let video = track.codec.isVideo
        w.box("trak") { w in
            // enabled | in movie | in preview (§8.3.2.3).
            w.fullBox("tkhd", version: 0, flags: 0x7) { w in
                w.u32(0); w.u32(0); w.u32(track.id); w.u32(0); w.u32(0)
                w.zeros(8)
                w.u16(0); w.u16(video ? 0 : 1)   // layer; alternate_group: audio tracks alternate
                w.u16(video ? 0 : 0x0100); w.u16(0)
                w.unityMatrix()
                let size = track.size ?? (0, 0)
                w.u32(UInt32(size.width) << 16); w.u32(UInt32(size.height) << 16)
            }
            w.box("mdia") { w in
                w.fullBox("mdhd", version: 0, flags: 0) { w in
                    w.u32(0); w.u32(0); w.u32(track.timescale); w.u32(0)
                    w.u16(0x55C4); w.u16(0)   // language "und" (ISO 639-2/T packed)
                }
                w.fullBox("hdlr", version: 0, flags: 0) { w in
                    w.u32(0); w.fourCC(video ? "vide" : "soun"); w.zeros(12)
                    w.append(Array((video ? "Grandstand video" : "Grandstand audio").utf8)); w.u8(0)
                }
                w.box("minf") { w in
                    if video {
                        w.fullBox("vmhd", version: 0, flags: 1) { w in w.zeros(8) }
                    } else {
                        w.fullBox("smhd", version: 0, flags: 0) { w in w.zeros(4) }
                    }
                    w.box("dinf") { w in
                        w.fullBox("dref", version: 0, flags: 0) { w in
                            w.u32(1)
                            w.fullBox("url ", version: 0, flags: 1) { _ in }   // media in this file
                        }
                    }
                    w.box("stbl") { w in
                        w.fullBox("stsd", version: 0, flags: 0) { w in
                            w.u32(1)
                            writeSampleEntry(&w, track)
                        }
                        w.fullBox("stts", version: 0, flags: 0) { w in w.u32(0) }
                        w.fullBox("stsc", version: 0, flags: 0) { w in w.u32(0) }
                        w.fullBox("stsz", version: 0, flags: 0) { w in w.u32(0); w.u32(0) }
                        w.fullBox("stco", version: 0, flags: 0) { w in w.u32(0) }
                    }
                }
            }
        }
    }

    /// `avc1` / `hvc1` (parameter sets only in the sample entry) or `mp4a`.
    private static func writeSampleEntry(_ w: inout ISOBoxWriter, _ track: CMAFTrack) {
        switch track.codec {
        case .avc(let c):
            visualEntry(&w, "avc1", width: c.width, height: c.height) { w in
                w.box("avcC") { w in w.append(c.decoderConfigurationRecord) }
            }
        case .hevc(let c):
            visualEntry(&w, "hvc1", width: c.width, height: c.height) { w in
                w.box("hvcC") { w in w.append(c.decoderConfigurationRecord) }
            }
        case .aac(let c):
            w.box("mp4a") { w in
                w.zeros(6); w.u16(1)                        // SampleEntry: data_reference_index 1
                w.zeros(8)
                w.u16(UInt16(c.channelCount)); w.u16(16)    // channelcount, samplesize
                w.u32(0)
                w.u32(UInt32(min(c.sampleRate, 65535)) << 16)
                c.writeESDS(&w, averageBitRate: 0)
            }
        }
    }

    /// VisualSampleEntry (§12.1.3): 72 dpi, one frame per sample, depth 24.
    private static func visualEntry(_ w: inout ISOBoxWriter, _ type: String, width: Int, height: Int,
                                    _ configuration: (inout ISOBoxWriter) -> Void) {
        w.box(type) { w in
            w.zeros(6); w.u16(1)
            w.zeros(16)
            w.u16(UInt16(clamping: width)); w.u16(UInt16(clamping: height))
            w.u32(0x0048_0000); w.u32(0x0048_0000); w.u32(0)
            w.u16(1)
            w.zeros(32)   // compressorname
            w.u16(0x0018); w.u16(0xFFFF)
            configuration(&w)
        }
    }
}
