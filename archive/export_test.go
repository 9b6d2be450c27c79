package archive

import (
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"

	"relayer/eventstore"
)

// EncodeSegment and the codecs let the benchmarks compare the segment codec with another in
// the same run.
func EncodeSegment(records []eventstore.Record, codec compress.Codec) ([]byte, error) {
	return encodeSegment(records, codec)
}

var (
	SegmentCodec compress.Codec = segmentCodec
	SnappyCodec  compress.Codec = &parquet.Snappy
)
