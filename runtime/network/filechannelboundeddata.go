package network

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// fileChannelBoundedData is the data of one blocking subpartition: every
// buffer the producer handed over, in order, then the EndOfPartition
// event, in a file of its own. It mirrors Flink's FileChannelBoundedData,
// and its file layout Flink's BufferReaderWriterUtil:
//
//	+---------------+----------+----------------------+
//	| data type (1) | size (4) | size bytes of buffer |   one per buffer, size big-endian
//	+---------------+----------+----------------------+
//
// The producer writes it through writeBuffer and finishWrite; any number
// of readers then read it from the start, each through a
// boundedDataReader of its own. It is not safe for concurrent use: its
// subpartition guards it.
type fileChannelBoundedData struct {
	path   string
	file   *os.File // open for writing until finishWrite; nil after
	header [bufferHeaderLength]byte
}

// bufferHeaderLength is the data type and the size in front of each
// buffer in the file.
const bufferHeaderLength = 1 + 4

// createFileChannelBoundedData creates a new, empty file in dir, its name
// made of pattern as os.CreateTemp makes it: the last "*" becomes a random
// string, so that no two files collide, in this process or another.
// Flink: FileChannelManager.createChannel, then FileChannelBoundedData.create.
func createFileChannelBoundedData(dir, pattern string) (*fileChannelBoundedData, error) {
	file, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, fmt.Errorf("create the file of a blocking subpartition in %s: %w", dir, err)
	}
	return &fileChannelBoundedData{path: file.Name(), file: file}, nil
}

// writeBuffer appends one buffer (data or event) to the file.
func (d *fileChannelBoundedData) writeBuffer(buffer Buffer) error {
	d.header[0] = byte(buffer.dataType)
	binary.BigEndian.PutUint32(d.header[1:], uint32(len(buffer.segment)))
	if _, err := d.file.Write(d.header[:]); err != nil {
		return fmt.Errorf("write to %s: %w", d.path, err)
	}
	if _, err := d.file.Write(buffer.segment); err != nil {
		return fmt.Errorf("write to %s: %w", d.path, err)
	}
	return nil
}

// finishWrite closes the file for writing: it is complete, and readers
// may open it.
func (d *fileChannelBoundedData) finishWrite() error {
	err := d.file.Close()
	d.file = nil
	if err != nil {
		return fmt.Errorf("close %s: %w", d.path, err)
	}
	return nil
}

// createReader opens the complete file for one reader, at its start.
func (d *fileChannelBoundedData) createReader() (*boundedDataReader, error) {
	file, err := os.Open(d.path)
	if err != nil {
		return nil, fmt.Errorf("open the file of a blocking subpartition: %w", err)
	}
	return &boundedDataReader{file: file, reader: bufio.NewReader(file)}, nil
}

// close closes the file if it is still being written and deletes it.
// Readers that still have it open may read on (a deleted file lives until
// its last reader closes it), but a released subpartition lets none of
// them read any more.
func (d *fileChannelBoundedData) close() error {
	var errs []error
	if d.file != nil {
		errs = append(errs, d.file.Close())
		d.file = nil
	}
	if err := os.Remove(d.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// boundedDataReader reads a fileChannelBoundedData from its start, one
// buffer at a time (Flink: FileChannelBoundedData.FileBufferReader). Each
// buffer gets memory of its own, as every Buffer does: records cut from it
// stay valid.
type boundedDataReader struct {
	file   *os.File
	reader *bufio.Reader
}

// nextBuffer reads the next buffer. The file ends with the EndOfPartition
// event; anything else at its end, or a malformed header, is an error.
func (r *boundedDataReader) nextBuffer() (Buffer, error) {
	var header [bufferHeaderLength]byte
	if _, err := io.ReadFull(r.reader, header[:]); err != nil {
		return Buffer{}, fmt.Errorf("read %s: %w", r.file.Name(), noEOF(err))
	}
	dataType, size := DataType(header[0]), binary.BigEndian.Uint32(header[1:])
	switch {
	case dataType == EndOfPartitionEvent && size == 0:
		return endOfPartition, nil
	case dataType != DataBuffer:
		return Buffer{}, fmt.Errorf("read %s: a buffer of %s with %d bytes", r.file.Name(), dataType, size)
	}
	segment := make([]byte, size)
	if _, err := io.ReadFull(r.reader, segment); err != nil {
		return Buffer{}, fmt.Errorf("read %s: %w", r.file.Name(), noEOF(err))
	}
	return Buffer{dataType: DataBuffer, segment: segment}, nil
}

// close closes the reader's own handle on the file.
func (r *boundedDataReader) close() { _ = r.file.Close() }

// noEOF turns an end of file into an unexpected one: a complete file ends
// with the EndOfPartition event, never before.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
