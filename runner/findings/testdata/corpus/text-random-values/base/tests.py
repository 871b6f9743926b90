import os, random, sys, uuid
print(f"FAIL test_worker: worker pid {os.getpid()} crashed")
print(f"FAIL test_id: request {uuid.uuid4()} failed")
print(f"FAIL test_seed: random seed {random.randint(1, 10**9)} produced a mismatch")
sys.exit(1)
