print("carrel")
