
/device:GPU:0èabc