import WaiHost
print("waihost")
