#ifndef TLSNEG_PACKET_TLSNEG_H
#define TLSNEG_PACKET_TLSNEG_H

void proto_register_tlsneg(void);
void proto_reg_handoff_tlsneg(void);

#endif
