package review

import (
	"fmt"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// CachedSlot is one slot of a review the cache held a pass for.
type CachedSlot struct {
	Adapter string
	Index   int
	Message string
}

// WriteCached writes, for a review result the cache held (res, with Cached
// set), the log and JSON of each slot that passed in the run that proved
// it, each saying so (proof names that run): later runs read them as the
// slots' verdicts in this run, a pass. It returns res with its slots, each
// an error when its files cannot be written.
func WriteCached(env gate.Env, job gate.Job, res gate.Result, slots []CachedSlot, proof string, now func() time.Time) gate.Result {
	if now == nil {
		now = time.Now
	}
	res.Slots = nil
	for _, cs := range slots {
		slot := gate.Slot{Adapter: cs.Adapter, Index: cs.Index, Status: gate.StatusPass, Message: cs.Message}
		if err := writeCachedSlot(env, job, &slot, proof, now); err != nil {
			// The gauntlet's own files, not the review, failed.
			slot.Status, slot.Message, slot.ErrorCount = gate.StatusError, err.Error(), 1
			slot.Infrastructure = true
			res.Status, res.Message = gate.StatusError, fmt.Sprintf("%s@%d: %v", cs.Adapter, cs.Index, err)
			res.ErrorCount++
			res.Infrastructure = true
		}
		res.Slots = append(res.Slots, slot)
	}
	return res
}

// writeCachedSlot writes the log and the JSON of one cached slot.
func writeCachedSlot(env gate.Env, job gate.Job, slot *gate.Slot, proof string, now func() time.Time) error {
	lg, err := createSlotLog(env.Names.SlotLog(job.ID, slot.Adapter, slot.Index, env.RunNumber).Path(env.LogDir), env.Pending, now)
	if err != nil {
		return err
	}
	slot.LogPath = lg.path
	lg.Printf("Starting review: %s", job.Name)
	lg.Printf("Entry point: %s", job.EntryPoint)
	lg.Printf("%s", proof)
	lg.Printf("Not asked: the result cache holds a pass for exactly this input.")
	lg.Printf("Adapter: %s", slot.Adapter)
	lg.Printf("Review index: @%d", slot.Index)
	lg.Printf("%s", markStatusPass)
	lg.Printf("Review result (%s@%d): %s - %s", slot.Adapter, slot.Index, slot.Status, slot.Message)
	if err := lg.Close(); err != nil {
		return err
	}
	jsonPath := env.Names.SlotJSON(job.ID, slot.Adapter, slot.Index, env.RunNumber).Path(env.LogDir)
	if err := writeSlotFile(jsonPath, SlotFile{Adapter: slot.Adapter, Timestamp: now().UTC().Format(timestampFormat),
		Status: gate.StatusPass}); err != nil {
		return err
	}
	slot.JSONPath = jsonPath
	return nil
}
