import CGSAVCodec
