echo "check-b: ok"
