package api_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/configuration"
)

var (
	small = api.ResourceProfileFromResources(1, 512)
	large = api.ResourceProfileFromResources(2, 1024)
)

// IsMatching is exact (Flink 1.12 and later): a slot matches a requirement
// it equals, or an unknown one, and a larger slot does not match a smaller
// requirement. AllFieldsNoLessThan is the "at least as large" check.
func TestResourceProfileIsMatchingAndAllFieldsNoLessThan(t *testing.T) {
	tests := []struct {
		name                    string
		slot, required          api.ResourceProfile
		matching, allFieldsNoLT bool
	}{
		{"unknown requirement, unknown slot", api.UnknownResourceProfile, api.UnknownResourceProfile, true, true},
		{"unknown requirement, concrete slot", large, api.UnknownResourceProfile, true, true},
		{"equal profiles", large, large, true, true},
		{"larger slot", large, small, false, true},
		{"smaller slot", small, large, false, false},
		{"enough CPU, too little memory", api.ResourceProfileFromResources(4, 512), large, false, false},
		{"enough memory, too little CPU", api.ResourceProfileFromResources(1, 4096), large, false, false},
		{"unknown slot, concrete requirement", api.UnknownResourceProfile, small, false, false},
		{"ANY, concrete requirement", api.AnyResourceProfile, large, true, true},
		{"zero slot, zero requirement", api.ZeroResourceProfile, api.ZeroResourceProfile, true, true},
		{"concrete slot, zero requirement", small, api.ZeroResourceProfile, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.matching, tt.slot.IsMatching(tt.required), "IsMatching")
			assert.Equal(t, tt.allFieldsNoLT, tt.slot.AllFieldsNoLessThan(tt.required), "AllFieldsNoLessThan")
		})
	}
}

// ZERO and UNKNOWN are different profiles, and arithmetic keeps them apart.
func TestResourceProfileArithmetic(t *testing.T) {
	assert.True(t, api.ResourceProfile{}.IsUnknown(), "the zero value is UNKNOWN")
	assert.False(t, api.ZeroResourceProfile.IsUnknown())
	assert.Equal(t, api.ZeroResourceProfile, api.NewResourceProfile(0, 0, 0, 0, 0))

	assert.Equal(t, large, small.Merge(small))
	assert.Equal(t, small, large.Subtract(small))
	assert.Equal(t, api.ZeroResourceProfile, small.Subtract(small), "all taken is ZERO, not UNKNOWN")
	assert.Equal(t, large, small.Multiply(2))
	assert.Equal(t, api.ZeroResourceProfile, small.Multiply(0))
	assert.Equal(t, small, large.Divide(2))

	for _, got := range []api.ResourceProfile{
		small.Merge(api.UnknownResourceProfile), api.UnknownResourceProfile.Merge(small),
		small.Subtract(api.UnknownResourceProfile), api.UnknownResourceProfile.Multiply(3),
	} {
		assert.Equal(t, api.UnknownResourceProfile, got, "UNKNOWN in, UNKNOWN out")
	}
	assert.Equal(t, api.AnyResourceProfile, api.AnyResourceProfile.Merge(small))
	assert.Panics(t, func() { small.Subtract(large) }, "a slot cannot take more than is there")
	assert.Panics(t, func() { small.Multiply(-1) })
}

// CPU cores are decimals in Flink (BigDecimal): subtracting 0.1 three
// times from 0.3 leaves exactly 0, where float arithmetic would not.
func TestCPUCoresAreDecimals(t *testing.T) {
	p := api.NewResourceProfile(0.3, configuration.OfMebiBytes(3), 0, 0, 0)
	tenth := api.NewResourceProfile(0.1, configuration.OfMebiBytes(1), 0, 0, 0)
	assert.Equal(t, api.ZeroResourceProfile, p.Subtract(tenth).Subtract(tenth).Subtract(tenth))
	assert.Equal(t, 0.7, api.ResourceProfileFromResources(2.1, 0).Divide(3).CPUCores)
	assert.Equal(t, 0.3, api.ResourceProfileFromResources(0.1, 0).Merge(api.ResourceProfileFromResources(0.2, 0)).CPUCores)
}

func TestResourceProfileString(t *testing.T) {
	assert.Equal(t, "ResourceProfile{UNKNOWN}", api.UnknownResourceProfile.String())
	assert.Equal(t, "ResourceProfile{ANY}", api.AnyResourceProfile.String())
	assert.Equal(t, "ResourceProfile{cpuCores=0, taskHeapMemory=0 bytes, taskOffHeapMemory=0 bytes, managedMemory=0 bytes, networkMemory=0 bytes}",
		api.ZeroResourceProfile.String())
	got := api.NewResourceProfile(1.5, 402653174, 0, 536870920, 134217730).String()
	assert.Equal(t, "ResourceProfile{cpuCores=1.5, taskHeapMemory=384.000mb (402653174 bytes), taskOffHeapMemory=0 bytes, "+
		"managedMemory=512.000mb (536870920 bytes), networkMemory=128.000mb (134217730 bytes)}", got)
}

// Profiles cross processes in gateway messages and in the JobGraph: each
// survives the trip as itself, UNKNOWN and ZERO included.
func TestResourceProfileJSON(t *testing.T) {
	for _, p := range []api.ResourceProfile{api.UnknownResourceProfile, api.ZeroResourceProfile, small,
		api.NewResourceProfile(0.3333333333333333, 134217724, 1, 178956973, 44739243)} {
		data, err := json.Marshal(p)
		require.NoError(t, err)
		var got api.ResourceProfile
		require.NoError(t, json.Unmarshal(data, &got))
		assert.Equal(t, p, got, string(data))
	}
	data, err := json.Marshal(api.UnknownResourceProfile)
	require.NoError(t, err)
	assert.Equal(t, "{}", string(data))
}
