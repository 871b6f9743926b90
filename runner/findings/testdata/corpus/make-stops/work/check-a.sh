echo "check-a: old failure"; exit 1
