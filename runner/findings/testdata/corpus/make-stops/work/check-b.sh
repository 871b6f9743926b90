echo "check-b: the new thing is broken"; exit 1
