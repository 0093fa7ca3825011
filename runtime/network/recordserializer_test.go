package network

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRecordsRoundTripThroughOneBuffer(t *testing.T) {
	tests := []struct {
		name    string
		records [][]byte
	}{
		{"one small record", [][]byte{[]byte("hello")}},
		{"empty record", [][]byte{{}}},
		{"empty between others", [][]byte{[]byte("a"), {}, []byte("b")}},
		{"127 bytes: one-byte length prefix", [][]byte{bytes.Repeat([]byte{7}, 127)}},
		{"128 bytes: two-byte length prefix", [][]byte{bytes.Repeat([]byte{8}, 128), []byte("next")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var builder bufferBuilder
			for _, r := range tt.records {
				builder.append(r, 1024)
			}
			var d recordDeserializer
			d.setNextBuffer(builder.build())
			for i, want := range tt.records {
				got, ok := d.nextRecord()
				require.True(t, ok, "record %d missing", i)
				assert.Equal(t, want, got, "record %d", i)
			}
			_, ok := d.nextRecord()
			assert.False(t, ok, "records beyond the written ones")
		})
	}
}

func TestSerializedSizeCountsThePrefix(t *testing.T) {
	tests := []struct {
		length int
		want   int
	}{
		{0, 1},
		{8, 9},
		{127, 128},
		{128, 130},
		{16383, 16385},
		{16384, 16387},
	}
	for _, tt := range tests {
		got := serializedSize(make([]byte, tt.length))
		assert.Equal(t, tt.want, got, "record of %d bytes", tt.length)
	}
}

func TestDeserializedRecordCannotOverwriteTheNext(t *testing.T) {
	var builder bufferBuilder
	builder.append([]byte("ab"), 64)
	builder.append([]byte("cd"), 64)
	var d recordDeserializer
	d.setNextBuffer(builder.build())

	first, _ := d.nextRecord()
	_ = append(first, 'X') // capacity is cut to length: this copies
	second, _ := d.nextRecord()
	assert.Equal(t, []byte("cd"), second)
}

func TestBuilderFitsOnlyWhatIsLeft(t *testing.T) {
	var builder bufferBuilder
	assert.False(t, builder.fits(1), "an empty builder has no buffer yet")

	builder.append(make([]byte, 5), 10) // 6 bytes of 10
	assert.True(t, builder.fits(4))
	assert.False(t, builder.fits(5))

	builder.reset()
	assert.True(t, builder.isEmpty())
}
